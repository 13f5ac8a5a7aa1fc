/**
 * The one error type of skillhouse. It knows its HTTP status, the spec's error body
 * (`[{title, description}]`, section 7) and the CLI exit code, so the server sends it and the
 * CLI prints it without either formatting errors of its own.
 */
export const STATUS_TITLES = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable entity',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
} as const

export type ErrorStatus = keyof typeof STATUS_TITLES

/** CLI exit codes (docs/operations.md): 1 runtime failure, 2 usage error (bad input). */
const EXIT_CODES: Record<ErrorStatus, 1 | 2> = {
  400: 2,
  401: 1,
  403: 1,
  404: 1,
  405: 2,
  409: 1,
  413: 2,
  415: 2,
  422: 2,
  431: 2,
  500: 1,
  503: 1,
}

export interface ErrorEntry {
  title: string
  description: string
}

export class SkillhouseError extends Error {
  readonly status: ErrorStatus
  readonly descriptions: string[]
  readonly headers: Record<string, string>

  constructor(status: ErrorStatus, descriptions: string | string[], headers: Record<string, string> = {}) {
    const list = Array.isArray(descriptions) ? descriptions : [descriptions]
    super(list.join('; '))
    this.name = 'SkillhouseError'
    this.status = status
    this.descriptions = list
    this.headers = headers
  }

  get title(): string {
    return `${this.status} ${STATUS_TITLES[this.status]}`
  }

  get exitCode(): number {
    return EXIT_CODES[this.status]
  }

  /** The spec's error body (section 7). */
  toBody(): ErrorEntry[] {
    return this.descriptions.map((description) => ({ title: this.title, description }))
  }
}

/** The catalogue: every error skillhouse raises is built here, so titles and wording stay uniform. */
export const errors = {
  /**
   * An error another skillhouse process raised and sent here as it was (the server's answer to
   * work a command handed it); a status this version does not know is an internal error.
   */
  relayed: (status: number, descriptions: string[]) =>
    new SkillhouseError(status in STATUS_TITLES ? (status as ErrorStatus) : 500, descriptions),
  badRequest: (description: string | string[]) => new SkillhouseError(400, description),
  unauthorized: (description: string) => new SkillhouseError(401, description),
  forbidden: (description: string) => new SkillhouseError(403, description),
  notFound: (kind: string, id: string, hint = 'create it first') =>
    new SkillhouseError(404, `${kind} '${id}' does not exist; ${hint}`),
  methodNotAllowed: (method: string, path: string, allow: string[]) =>
    new SkillhouseError(405, `method ${method} is not allowed on ${path}; allowed: ${allow.join(', ')}`, {
      Allow: allow.join(', '),
    }),
  conflict: (kind: string, id: string) => new SkillhouseError(409, `${kind} '${id}' already exists`),
  payloadTooLarge: (limit: number) =>
    new SkillhouseError(413, `the request body is larger than the limit of ${limit} bytes`),
  unsupportedMediaType: (got: string | undefined) =>
    new SkillhouseError(
      415,
      `the content type must be application/json${got ? `; got ${got}` : '; none was sent'}`,
    ),
  /** 431 of a request whose request line and headers (a long URL) pass the server's limit. */
  headersTooLarge: (limit: number) =>
    new SkillhouseError(
      431,
      `the request line and headers are larger than the limit of ${limit} bytes; shorten the URL (long lists of ids belong in a POST body) or send fewer headers`,
    ),
  /** 400 of a request that is not HTTP/1.1 the server can read. */
  malformedRequest: (reason: string) =>
    new SkillhouseError(400, `the request is not valid HTTP/1.1: ${reason}`),
  unprocessable: (descriptions: string | string[]) => new SkillhouseError(422, descriptions),
  unavailable: (description: string) => new SkillhouseError(503, description),
  internal: (description: string) => new SkillhouseError(500, description),

  // Authentication, access tokens and OAuth clients (section 5).
  /** 401 of a request without a bearer token (RFC 6750 3.1: the challenge without an error code). */
  missingAccessToken: (description: string) =>
    new SkillhouseError(401, description, { 'WWW-Authenticate': 'Bearer realm="skillhouse"' }),
  /** 401 of a bearer token that is expired, forged or not for this service. */
  invalidAccessToken: (description: string) =>
    new SkillhouseError(401, description, {
      'WWW-Authenticate': `Bearer realm="skillhouse", error="invalid_token", error_description="${description.replaceAll('"', "'")}"`,
    }),
  /** 401 of a valid token whose client was revoked since it was issued. */
  revokedClientToken: (clientId: string, revokedAt: string) =>
    new SkillhouseError(401, `the access token's client ${clientId} was revoked at ${revokedAt}`, {
      'WWW-Authenticate': 'Bearer realm="skillhouse", error="invalid_token"',
    }),
  /** 403 of a token without the scope the request needs. */
  insufficientScope: (scope: string, description: string) =>
    new SkillhouseError(403, description, {
      'WWW-Authenticate': `Bearer realm="skillhouse", error="insufficient_scope", scope="${scope}"`,
    }),
  /** 401 of a token request with client credentials that get no token (RFC 6749 invalid_client). */
  invalidClient: (description: string) =>
    new SkillhouseError(401, description, { 'WWW-Authenticate': 'Basic realm="skillhouse"' }),
  /** 404 of `/oauth/token` on a server that accepts an external authorization server's tokens. */
  tokensNotIssued: () =>
    new SkillhouseError(
      404,
      'this server does not issue tokens: it accepts the tokens of an external authorization server (--jwks-file/--jwks-url); get one there',
    ),
  /** 415 of a token request that is neither a form nor JSON. */
  tokenRequestMediaType: (got: string | undefined) =>
    new SkillhouseError(
      415,
      `the content type of a token request must be application/x-www-form-urlencoded or application/json; got ${got ?? 'none'}`,
    ),
  /** 404 of a path no endpoint has, below a base URL or outside every one. */
  noEndpoint: (path: string) =>
    new SkillhouseError(404, `no endpoint ${path}; paths hang below a tenant's base URL /{tenant}/{region}`),
  /** 404 of an endpoint's path with a trailing slash. */
  trailingSlash: (path: string) =>
    new SkillhouseError(
      404,
      `no endpoint ${path}; the endpoint is ${path.replace(/\/+$/, '')}, without the trailing slash`,
    ),
  /** An error of an endpoint whose list in section 4 lacks its status but has 400: the same, as 400. */
  asBadRequest: (error: SkillhouseError) => new SkillhouseError(400, error.descriptions, error.headers),

  // Entities, their records and skill events (sections 2 and 4).
  /** A record others still refer to cannot be deleted (names up to five of them). */
  stillReferred: (noun: string, id: string, by: string, names: readonly string[], more: boolean) =>
    new SkillhouseError(
      409,
      `${noun} '${id}' is still referred to by ${by} (${names.join(', ')}${more ? ', …' : ''}); delete them or point them elsewhere first`,
    ),
  unknownParentUnit: (parent: string) =>
    new SkillhouseError(404, `parent_id: organisational unit '${parent}' does not exist; create it first`),
  /** Query parameters that do not parse (one description each). */
  invalidQuery: (descriptions: string[]) => new SkillhouseError(422, descriptions),
  /** Problems of a request body: 400 when any is of its structure, else 422. */
  invalidInput: (structural: boolean, descriptions: string[]) =>
    new SkillhouseError(structural ? 400 : 422, descriptions),
  /** A record refers to records that do not exist (one description each). */
  unknownReferences: (descriptions: string[]) => new SkillhouseError(404, descriptions),
  /** 4.2: a skill event's external_id is stored already, with the same or with other content. */
  skillEventExists: (id: string, same: boolean) =>
    new SkillhouseError(
      409,
      same
        ? `skill event '${id}' already exists with the same content; it is stored, nothing changed`
        : `skill event '${id}' already exists with different content; a skill event cannot be changed, send a new one with its own external_id`,
    ),

  // Taxonomy: domains, subdomains, skills and custom properties (sections 2.2, 2.3, 2.9).
  /** 409: an entity of a taxonomy level cannot go while others refer to it (`named`: the first of them). */
  taxonomyEntityInUse: (entity: {
    kind: string
    id: string
    childKind: string
    named: readonly string[]
    more: boolean
  }) =>
    new SkillhouseError(
      409,
      `${entity.kind} '${entity.id}' still has ${entity.childKind}s (${entity.named.join(', ')}${entity.more ? ', …' : ''}); delete or move them first`,
    ),

  // Analytics: gaps, previews and exports.
  /** Neither the employee nor the vacancy of a gap (4.5) exists: both named, so that one round trip fixes both ids. */
  unknownEmployeeAndVacancy: (employeeId: string, vacancyId: string): SkillhouseError =>
    new SkillhouseError(404, [
      ...errors.notFound('employee', employeeId).descriptions,
      ...errors.notFound('vacancy', vacancyId).descriptions,
    ]),
  /** A job change preview request (2.6) of the wrong structure: one description per issue, naming its field. */
  malformedPreviewRequest: (issues: string[]) => new SkillhouseError(400, issues),
  /** The job of a job change preview, or some of its reference jobs, do not exist: each named, the job first. */
  unknownPreviewJobs: (jobId: string, missingIds: readonly string[]): SkillhouseError =>
    new SkillhouseError(
      404,
      missingIds.flatMap(
        (id) =>
          errors.notFound(
            id === jobId ? 'job' : 'reference job',
            id,
            'create it first (POST /job_architecture/jobs)',
          ).descriptions,
      ),
    ),

  // Webhooks (section 6).
  /** A URL has an active subscription already (one subscription per URL). */
  urlSubscribedAlready: (url: string, subscriptionId: string) =>
    new SkillhouseError(
      409,
      `url: ${url} is subscribed already as ${subscriptionId}; remove that subscription first to subscribe it again with other event types`,
    ),

  // The server's local channel (docs/architecture.md): commands hand their work to the server.
  /** A command that names no tenant in a data directory of several and no default. */
  severalTenants: (names: readonly string[]) =>
    new SkillhouseError(
      400,
      `several tenants exist (${names.join(', ')}): name one with --tenant NAME or SKILLHOUSE_TENANT=NAME, or make one the default with \`skillhouse tenant use NAME\``,
    ),
  /** A tenant to delete while the server serves it. */
  servedTenantKept: (name: string, pid: number, url: string) =>
    new SkillhouseError(
      409,
      `tenant ${name} is served by skillhouse serve (PID ${pid}, ${url}); stop the server (kill ${pid}) first, then retry`,
    ),
  /** A second server on a data directory a live one serves. */
  dataDirectoryServed: (dataDir: string, pid: number, url: string) =>
    new SkillhouseError(
      409,
      `data directory ${dataDir} is served already by skillhouse serve (PID ${pid}, ${url}): its tenants are held by that server; stop it first (kill ${pid}), or serve another --data-dir`,
    ),
  /** A request on the local channel without the secret of the data directory's serve.json. */
  localChannelRefused: () =>
    new SkillhouseError(
      401,
      'the local channel answers only requests that carry the secret of the data directory it serves (serve.json)',
    ),
  unknownOperation: (name: string) =>
    new SkillhouseError(
      400,
      `operation '${String(name)}' is not one this server runs; a command and its server of different skillhouse versions?`,
    ),
  /** `events deliver` while the server, which delivers the events itself, serves the tenant. */
  deliveredByServer: (pid: number, url: string) =>
    new SkillhouseError(
      409,
      `the server (PID ${pid}, ${url}) serves this data directory and delivers its tenants' events to their webhooks itself; \`skillhouse webhook list\` shows how far each subscription is`,
    ),
  /** Work a command handed to the server and interrupted (Ctrl-C, SIGTERM). */
  interrupted: (description: string) => new SkillhouseError(503, description),
}

export function isSkillhouseError(error: unknown): error is SkillhouseError {
  return error instanceof SkillhouseError
}
