import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import { errors } from '../errors/skillhouse-error.js'
import { ensureDataDir } from '../tenants/data-directory.js'
import { z } from '../vendor/zod.js'

/** The algorithm of the server's own tokens: ES256 works in every WebCrypto, Node 20's included. */
export const SIGNING_ALGORITHM = 'ES256'

/** The file of the data directory that holds the server's signing key (docs/guide.md, the data directory). */
export const SIGNING_KEY_FILE = 'server-signing-key.json'

const KeyFile = z.object({
  alg: z.literal(SIGNING_ALGORITHM),
  kid: z.string().min(1),
  created_at: z.string(),
  private_jwk: z.record(z.string(), z.unknown()),
})

/** The key that signs and checks the server's access tokens. */
export interface SigningKey {
  kid: string
  privateKey: CryptoKey
  publicKey: CryptoKey
}

/**
 * The signing key of the data directory, created on first use (the server's first start, or the
 * first `skillhouse token`), readable by its owner only (mode 600). Creation is atomic and
 * exclusive: a server and a `skillhouse token` starting at once end up with the same key.
 */
export async function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  const path = join(ensureDataDir(dataDir), SIGNING_KEY_FILE)
  if (!existsSync(path)) await createKeyFile(path)
  return readKeyFile(path)
}

async function createKeyFile(path: string): Promise<void> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true })
  const jwk = await exportJWK(privateKey)
  const kid = await calculateJwkThumbprint(jwk)
  const content = `${JSON.stringify({ alg: SIGNING_ALGORITHM, kid, created_at: new Date().toISOString(), private_jwk: jwk }, null, 2)}\n`
  // Written whole under a temporary name with mode 600, then linked into place: link fails when
  // another process created the key first, and then its key is the one both use.
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  writeFileSync(temporary, content, { mode: 0o600, flag: 'wx' })
  try {
    linkSync(temporary, path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    rmSync(temporary, { force: true })
  }
}

async function readKeyFile(path: string): Promise<SigningKey> {
  // A key others can read lets them mint tokens for every tenant: tighten it rather than serve with it.
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600)
  let parsed: z.infer<typeof KeyFile>
  try {
    parsed = KeyFile.parse(JSON.parse(readFileSync(path, 'utf8')))
  } catch (error) {
    throw errors.unavailable(
      `the signing key ${path} is damaged (${(error as Error).message}); remove it to create a new one (tokens signed with the old key stop working)`,
    )
  }
  const privateJwk = parsed.private_jwk as JWK
  const { d: _private, ...publicJwk } = privateJwk
  return {
    kid: parsed.kid,
    privateKey: (await importJWK(privateJwk, SIGNING_ALGORITHM)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, SIGNING_ALGORITHM)) as CryptoKey,
  }
}
