import type { Context, Hono } from 'hono'
import { issueClientToken, type TokenRequest } from '../auth/oauth-clients.js'
import type { SigningKey } from '../auth/signing-key.js'
import { errors } from '../errors/skillhouse-error.js'
import { type AppEnv, idHeader } from './app-env.js'
import { jsonResponse, mediaType, readText } from './http-io.js'
import type { TenantPool } from './tenant-pool.js'

/**
 * `POST /oauth/token` (section 5): the client credentials grant, with the server's own key. A
 * server that accepts an external authorization server's tokens (no key) answers every method
 * of the path with 404 saying so.
 */
export function serveTokenEndpoint(
  app: Hono<AppEnv>,
  signingKey: SigningKey | undefined,
  pool: TenantPool,
  bodyLimit: number,
): void {
  if (!signingKey) {
    app.all('/oauth/token', () => {
      throw errors.tokensNotIssued()
    })
    return
  }
  app.post('/oauth/token', async (c) => {
    const request = await tokenRequest(c.req.raw, bodyLimit)
    const response = await issueClientToken(pool.current(), signingKey, request, basicCredentials(c))
    return jsonResponse(JSON.stringify(response), 200, {
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      ...idHeader(c),
    })
  })
}

/** The body of a token request: a form (RFC 6749) or JSON (both are accepted, docs/api.md). */
async function tokenRequest(request: Request, limit: number): Promise<TokenRequest> {
  const type = mediaType(request)
  if (type !== 'application/x-www-form-urlencoded' && type !== 'application/json') {
    throw errors.tokenRequestMediaType(request.headers.get('content-type') ?? undefined)
  }
  const text = await readText(request, limit)
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text))
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    throw errors.badRequest(`the request body is not valid JSON: ${(error as Error).message}`)
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.badRequest('a token request is a JSON object with grant_type, client_id and client_secret')
  }
  return body as TokenRequest
}

/** HTTP Basic client credentials (RFC 6749 2.3.1), when sent. */
function basicCredentials(c: Context<AppEnv>): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')
  if (!match?.[1]) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) throw errors.badRequest('the Basic credentials must be base64 of client_id:client_secret')
  try {
    // RFC 6749 2.3.1: both parts are form-urlencoded before they are joined.
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' ')),
    }
  } catch {
    throw errors.badRequest('the Basic credentials are not form-urlencoded client_id:client_secret')
  }
}
