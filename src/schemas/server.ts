import { z } from './zod.js'

/**
 * What the HTTP server answers beyond the resources: the spec's error body (section 7), the
 * health check and the OAuth 2.0 client credentials grant of docs/api.md (`POST /oauth/token`).
 */

/** One entry of an error body: `title` is the status code and its name, e.g. `404 Not Found`. */
export const ErrorEntry = z.object({
  title: z.string().regex(/^\d{3} \S.*$/),
  description: z.string(),
})

/** The error body of section 7: one entry per problem. */
export const ErrorBody = z.array(ErrorEntry).min(1)
export type ErrorBody = z.infer<typeof ErrorBody>

/**
 * The origin clients reach a server at (`serve --origin`): http or https, a host and maybe a
 * port, no path, query or credentials. Event sources are built on it.
 */
export const ServerOrigin = z
  .url({ protocol: /^https?$/ })
  .refine((value) => {
    const url = new URL(value)
    return url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password
  }, 'must be an origin: http(s)://HOST[:PORT], without a path, query or credentials')
  .transform((value) => new URL(value).origin)

/** `GET /healthz` while the server serves (while it drains, 503 with an error body). */
export const HealthStatus = z.object({
  status: z.literal('ok'),
  /** Tenant databases the server holds open right now. */
  tenants_open: z.number().int().min(0),
})

/**
 * A client credentials request (RFC 6749 4.4), as a form or as JSON. The client's credentials go
 * in the body or in an HTTP Basic `Authorization` header; `scope` is space-separated (default: all
 * of the client's scopes).
 */
export const TokenRequest = z.object({
  grant_type: z.literal('client_credentials'),
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
  scope: z.string().optional(),
})

/** The answer of `POST /oauth/token`. */
export const TokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  /** Lifetime in seconds. */
  expires_in: z.number().int().min(1),
  /** The scopes granted, space-separated. */
  scope: z.string(),
})
export type TokenResponse = z.infer<typeof TokenResponse>
