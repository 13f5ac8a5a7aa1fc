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
  unprocessable: (descriptions: string | string[]) => new SkillhouseError(422, descriptions),
  unavailable: (description: string) => new SkillhouseError(503, description),
  internal: (description: string) => new SkillhouseError(500, description),

  // Authentication, access tokens and OAuth clients (section 5).

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

  // Analytics: gaps, previews and exports.

  // Webhooks (section 6).
}

export function isSkillhouseError(error: unknown): error is SkillhouseError {
  return error instanceof SkillhouseError
}
