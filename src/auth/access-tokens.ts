import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
} from 'jose'
import { errors, type SkillhouseError } from '../errors/skillhouse-error.js'
import { SIGNING_ALGORITHM, type SigningKey } from './signing-key.js'

/** The scopes (docs/api.md): `read` for GET, `write` for what changes data. */
export const SCOPES = ['read', 'write'] as const
export type Scope = (typeof SCOPES)[number]

/** Issuer of the server's own tokens. */
export const TOKEN_ISSUER = 'skillhouse'

/** What a verified access token grants: who, for which tenant, which scopes. */
export interface AccessClaims {
  sub: string
  tenant: string
  scopes: Scope[]
}

/** Checks bearer tokens: resolves to their claims, or throws a 401 (a 503 when the key source is down). */
export interface TokenVerifier {
  verify(token: string): Promise<AccessClaims>
}

/** Mints a token of the server's own: sub = the client, the tenant and the scopes as claims, an expiry. */
export async function mintAccessToken(
  key: SigningKey,
  claims: AccessClaims & { expiresIn: number },
): Promise<string> {
  return new SignJWT({ tenant: claims.tenant, scope: claims.scopes.join(' ') })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + claims.expiresIn)
    .setJti(randomUUID())
    .sign(key.privateKey)
}

/** Verifies the server's own tokens with its signing key. */
export function localTokenVerifier(key: SigningKey): TokenVerifier {
  return {
    verify: (token) =>
      verifyWith(() =>
        jwtVerify(token, key.publicKey, { algorithms: [SIGNING_ALGORITHM], issuer: TOKEN_ISSUER }),
      ),
  }
}

/** Where an external authorization server publishes its keys, and what its tokens must say. */
/**
 * Remembers tokens that verified, until they expire: checking an ES256 signature costs more than
 * the rest of a small request, and a client sends the same token for an hour. A token is trusted
 * from the cache exactly as long as a fresh check would accept it (its `exp`); the cache holds at
 * most `max` tokens, the oldest leaving first.
 */
export function rememberVerified(verifier: TokenVerifier, max = 1024): TokenVerifier {
  const verified = new Map<string, { claims: AccessClaims; expiresAtMs: number }>()
  return {
    verify: async (token) => {
      const known = verified.get(token)
      if (known && Date.now() < known.expiresAtMs) return known.claims
      if (known) verified.delete(token)
      const claims = await verifier.verify(token)
      const { exp } = decodeJwt(token)
      // A token without an expiry is checked every time.
      if (typeof exp === 'number') {
        if (verified.size >= max) verified.delete(verified.keys().next().value as string)
        verified.set(token, { claims, expiresAtMs: exp * 1000 })
      }
      return claims
    },
  }
}

export interface JwksSource {
  jwksFile?: string | undefined
  jwksUrl?: string | undefined
  issuer?: string | undefined
  audience?: string | undefined
}

/**
 * Verifies tokens of an external authorization server against its JWKS (a file, read once, or a
 * URL, fetched and cached by jose). Its tokens carry the tenant in a `tenant` claim and the
 * scopes in `scope` (space-separated, RFC 8693) or `scp` (a list or a string), as common servers
 * issue them; `issuer` and `audience`, when given, must match.
 */
export function jwksTokenVerifier(source: JwksSource): TokenVerifier {
  let keys: JWTVerifyGetKey
  if (source.jwksFile) {
    let set: JSONWebKeySet
    try {
      set = JSON.parse(readFileSync(source.jwksFile, 'utf8')) as JSONWebKeySet
    } catch (error) {
      throw errors.badRequest(`\`jwks_file\` ${source.jwksFile}: ${(error as Error).message}`)
    }
    if (!Array.isArray(set?.keys))
      throw errors.badRequest(`\`jwks_file\` ${source.jwksFile}: has no "keys" list`)
    keys = createLocalJWKSet(set)
  } else if (source.jwksUrl) {
    let url: URL
    try {
      url = new URL(source.jwksUrl)
    } catch {
      throw errors.badRequest(`\`jwks_url\` ${source.jwksUrl} is not a URL`)
    }
    keys = createRemoteJWKSet(url)
  } else {
    throw errors.badRequest('name the external key set with `jwks_file` or `jwks_url`')
  }
  const options = {
    ...(source.issuer ? { issuer: source.issuer } : {}),
    ...(source.audience ? { audience: source.audience } : {}),
  }
  return { verify: (token) => verifyWith(() => jwtVerify(token, keys, options)) }
}

const unauthorized = errors.invalidAccessToken

async function verifyWith(verify: () => Promise<{ payload: JWTPayload }>): Promise<AccessClaims> {
  let payload: JWTPayload
  try {
    ;({ payload } = await verify())
  } catch (error) {
    throw describeFailure(error)
  }
  const tenant = payload.tenant
  if (typeof tenant !== 'string' || tenant.length === 0) {
    throw unauthorized('the access token has no tenant claim; it was not issued for this service')
  }
  if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
    throw unauthorized('the access token has no subject (sub) claim')
  }
  return { sub: payload.sub, tenant, scopes: scopesOf(payload) }
}

function scopesOf(payload: JWTPayload): Scope[] {
  const raw = payload.scope ?? payload.scp
  const list = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(/\s+/) : []
  return SCOPES.filter((scope) => list.includes(scope))
}

function describeFailure(error: unknown): SkillhouseError {
  if (error instanceof joseErrors.JWTExpired) {
    return unauthorized('the access token has expired; get a new one from POST /oauth/token')
  }
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return unauthorized(`the access token's ${error.claim} claim is not valid: ${error.message}`)
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return unauthorized('the access token is not signed by a key this server trusts')
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JOSEAlgNotAllowed) {
    return unauthorized('the access token is signed with a key or algorithm this server does not accept')
  }
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) {
    return errors.unavailable(
      `the authorization server's key set cannot be read (${(error as Error).message}); retry later`,
    )
  }
  if (error instanceof joseErrors.JOSEError) {
    return unauthorized(`the access token is not a valid JWT (${error.message})`)
  }
  return errors.unavailable(
    `the access token cannot be checked now (${error instanceof Error ? error.message : String(error)}); retry later`,
  )
}
