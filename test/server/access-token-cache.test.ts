import { afterAll, describe, expect, it } from 'vitest'
import {
  type AccessClaims,
  localTokenVerifier,
  mintAccessToken,
  rememberVerified,
  type TokenVerifier,
} from '../../src/auth/access-tokens.js'
import { loadOrCreateSigningKey } from '../../src/auth/signing-key.js'
import { tempDir } from '../helpers/temp-tenant.js'

describe('remembering verified access tokens', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  const counting = (inner: TokenVerifier) => {
    let checks = 0
    return {
      verifier: {
        verify: (token: string) => {
          checks++
          return inner.verify(token)
        },
      } satisfies TokenVerifier,
      checks: () => checks,
    }
  }
  const claims: AccessClaims = { sub: 'client-1', tenant: 'acme', scopes: ['read'] }

  it('checks a token once while it is valid, and refuses it with 401 once it has expired', async () => {
    const key = await loadOrCreateSigningKey(temp.dir)
    const inner = counting(localTokenVerifier(key))
    const verifier = rememberVerified(inner.verifier)
    const token = await mintAccessToken(key, { ...claims, expiresIn: 2 })
    expect(await verifier.verify(token)).toEqual(claims)
    expect(await verifier.verify(token)).toEqual(claims)
    expect(inner.checks()).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 2100))
    await expect(verifier.verify(token)).rejects.toMatchObject({ status: 401 })
    expect(inner.checks()).toBe(2)
  })

  it('never remembers a token that failed, and keeps at most the newest tokens', async () => {
    const key = await loadOrCreateSigningKey(temp.dir)
    const inner = counting(localTokenVerifier(key))
    const verifier = rememberVerified(inner.verifier, 2)
    const token = await mintAccessToken(key, { ...claims, expiresIn: 60 })
    const tampered = `${token.slice(0, -4)}AAAA`
    await expect(verifier.verify(tampered)).rejects.toMatchObject({ status: 401 })
    await expect(verifier.verify(tampered)).rejects.toMatchObject({ status: 401 })
    expect(inner.checks()).toBe(2)
    const tokens = await Promise.all(
      ['a', 'b', 'c'].map((sub) => mintAccessToken(key, { ...claims, sub, expiresIn: 60 })),
    )
    for (const each of tokens) await verifier.verify(each)
    await verifier.verify(tokens[2] as string)
    await verifier.verify(tokens[0] as string)
    // a, b, c checked; c remembered; a had left the cache (at most 2) and is checked again.
    expect(inner.checks()).toBe(6)
  })
})
