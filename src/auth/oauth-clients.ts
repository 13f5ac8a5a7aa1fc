import { errors } from '../errors/skillhouse-error.js'
import type { TokenResponse } from '../schemas/server.js'
import {
  newOAuthClient,
  type OAuthClient,
  type TenantEntry,
  TenantRegistry,
  verifySecret,
} from '../tenants/tenant-registry.js'
import { type AccessClaims, mintAccessToken, SCOPES, type Scope } from './access-tokens.js'
import { loadOrCreateSigningKey, type SigningKey } from './signing-key.js'

/** Lifetime of a token from `POST /oauth/token`, in seconds. */
export const CLIENT_TOKEN_SECONDS = 3600

/** A client as `client list` shows it: never its secret, not even hashed. */
export interface ClientSummary {
  tenant: string
  client_id: string
  scopes: Scope[]
  created_at: string
  revoked_at: string | null
}

/** A new client with its secret, which is shown this once and stored only hashed. */
export interface CreatedClient extends ClientSummary {
  client_secret: string
}

const summary = (tenant: string, client: OAuthClient): ClientSummary => ({
  tenant,
  client_id: client.client_id,
  scopes: client.scopes,
  created_at: client.created_at,
  revoked_at: client.revoked_at,
})

/** Creates an OAuth client of a tenant (the only one when none is named) with the given scopes. */
export function createClient(
  dataDir: string,
  tenant: string | undefined,
  scopes: readonly Scope[],
): CreatedClient {
  const { client, secret } = newOAuthClient(scopes.length ? [...new Set(scopes)] : ['read', 'write'])
  const name = TenantRegistry.update(dataDir, (registry) => {
    const entry = registry.pick(tenant)
    entry.clients.push(client)
    return entry.settings.name
  })
  return { ...summary(name, client), client_secret: secret }
}

/** The clients of a tenant, or of every tenant when `tenant` is undefined and several exist. */
export function listClients(dataDir: string, tenant: string | undefined): ClientSummary[] {
  const registry = TenantRegistry.load(dataDir)
  const entries = tenant ? [registry.get(tenant)] : registry.list()
  return entries.flatMap((entry) => entry.clients.map((client) => summary(entry.settings.name, client)))
}

/**
 * Revokes a client: its secret no longer gets tokens and the tokens it got are refused (401).
 * Revoking a revoked client changes nothing. 404 for an unknown client id.
 */
export function revokeClient(dataDir: string, clientId: string): ClientSummary {
  return TenantRegistry.update(dataDir, (registry) => {
    const found = findClient(registry, clientId)
    if (!found) throw errors.notFound('OAuth client', clientId, 'see `skillhouse client list`')
    found.client.revoked_at ??= new Date().toISOString()
    return summary(found.entry.settings.name, found.client)
  })
}

/** The tenant and client a client_id belongs to; client ids are unique across tenants. */
export function findClient(
  registry: TenantRegistry,
  clientId: string,
): { entry: TenantEntry; client: OAuthClient } | undefined {
  for (const entry of registry.list()) {
    const client = entry.clients.find((candidate) => candidate.client_id === clientId)
    if (client) return { entry, client }
  }
  return undefined
}

/** A client credentials request (RFC 6749 4.4), from a form or JSON body and an optional Basic header. */
export interface TokenRequest {
  grant_type?: unknown
  client_id?: unknown
  client_secret?: unknown
  scope?: unknown
}

/** The answer of `POST /oauth/token`. */
export type { TokenResponse } from '../schemas/index.js'

const invalidClient = errors.invalidClient

/**
 * `POST /oauth/token`: the client credentials grant. 400 for another grant type, missing
 * credentials or a scope the client does not have (RFC 6749's invalid_request, unsupported_grant_type
 * and invalid_scope), 401 for an unknown or revoked client or a wrong secret (invalid_client). The
 * token is for the client's tenant, with the scopes asked for (default: all of the client's).
 */
export async function issueClientToken(
  registry: TenantRegistry,
  key: SigningKey,
  request: TokenRequest,
  basic: { id: string; secret: string } | undefined,
): Promise<TokenResponse> {
  if (request.grant_type !== 'client_credentials') {
    throw errors.badRequest(
      `grant_type: ${request.grant_type === undefined ? 'is required' : `'${String(request.grant_type)}' is not supported`}; use client_credentials`,
    )
  }
  const clientId = basic?.id ?? request.client_id
  const secret = basic?.secret ?? request.client_secret
  if (typeof clientId !== 'string' || clientId === '' || typeof secret !== 'string' || secret === '') {
    throw errors.badRequest(
      'client_id and client_secret are required (in the body, or as HTTP Basic credentials)',
    )
  }
  const found = findClient(registry, clientId)
  // One answer for an unknown client and a wrong secret: the difference would tell which ids exist.
  if (!found || !verifySecret(secret, found.client.secret_hash)) {
    throw invalidClient('the client_id or client_secret is wrong')
  }
  if (found.client.revoked_at)
    throw invalidClient(`client '${clientId}' was revoked at ${found.client.revoked_at}`)
  const scopes = requestedScopes(request.scope, found.client.scopes)
  const claims: AccessClaims = { sub: clientId, tenant: found.entry.settings.name, scopes }
  return {
    access_token: await mintAccessToken(key, { ...claims, expiresIn: CLIENT_TOKEN_SECONDS }),
    token_type: 'Bearer',
    expires_in: CLIENT_TOKEN_SECONDS,
    scope: scopes.join(' '),
  }
}

function requestedScopes(scope: unknown, granted: readonly Scope[]): Scope[] {
  if (scope === undefined || scope === null || scope === '') return [...granted]
  if (typeof scope !== 'string')
    throw errors.badRequest('scope: must be a space-separated string such as "read write"')
  const asked = [...new Set(scope.split(/\s+/).filter(Boolean))]
  const unknown = asked.filter((value) => !(SCOPES as readonly string[]).includes(value))
  if (unknown.length) {
    throw errors.badRequest(
      `scope: ${unknown.join(', ')} ${unknown.length > 1 ? 'are not scopes' : 'is not a scope'}; valid: ${SCOPES.join(', ')}`,
    )
  }
  const missing = asked.filter((value) => !granted.includes(value as Scope))
  if (missing.length) {
    throw errors.badRequest(
      `scope: the client may not ask for ${missing.join(', ')}; its scopes are ${granted.join(', ') || 'none'}`,
    )
  }
  return SCOPES.filter((value) => asked.includes(value))
}

/** Subject of tokens minted by `skillhouse token`: no client, the operator at the machine. */
export const LOCAL_TOKEN_SUBJECT = 'skillhouse-cli'

/** What `skillhouse token` prints. */
export interface LocalToken extends TokenResponse {
  tenant: string
}

/**
 * Mints a short-lived token for a tenant with the data directory's signing key (created when
 * missing), for quick local testing: whoever can read the data directory can serve it anyway.
 * The default scopes are read and write; the lifetime is 1 to 86,400 seconds (default 900).
 */
export async function mintLocalToken(
  dataDir: string,
  tenant: string | undefined,
  scopes: readonly Scope[],
  expiresIn = 900,
): Promise<LocalToken> {
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > 86_400) {
    throw errors.unprocessable(
      `\`expires_in\` ${expiresIn}: must be a whole number of seconds from 1 to 86400`,
    )
  }
  const entry = TenantRegistry.load(dataDir).pick(tenant)
  const granted = SCOPES.filter((scope) => (scopes.length ? scopes.includes(scope) : true))
  const key = await loadOrCreateSigningKey(dataDir)
  const access_token = await mintAccessToken(key, {
    sub: LOCAL_TOKEN_SUBJECT,
    tenant: entry.settings.name,
    scopes: granted,
    expiresIn,
  })
  return {
    access_token,
    token_type: 'Bearer',
    expires_in: expiresIn,
    scope: granted.join(' '),
    tenant: entry.settings.name,
  }
}
