import type { Scope } from '../auth/access-tokens.js'

/**
 * What a GET answered, ready to be sent again: the JSON as bytes, the headers but the request id
 * (content type and the route's own), and the scope a token needs to be given it.
 */
export interface CachedAnswer {
  status: 200
  body: Buffer
  headers: Record<string, string>
  scope: Scope
}

/** 64 MiB of answers by default (`SKILLHOUSE_RESPONSE_CACHE_BYTES`, 0 for none). */
export const DEFAULT_RESPONSE_CACHE_BYTES = Number(
  process.env.SKILLHOUSE_RESPONSE_CACHE_BYTES ?? 64 * 1024 * 1024,
)

/**
 * GET answers kept with the tenant data version they were computed at (`TenantPool.version`): an
 * answer is given again only while that version holds, so nothing stale is ever served; any
 * write, derivation or batch of skill events on the tenant moves the version on. The least
 * recently used answers leave first once the cache holds more than `maxBytes` of JSON.
 */
export class AnswerCache {
  private readonly entries = new Map<string, { version: string; answer: CachedAnswer }>()
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  /** The answer for `key` computed at `version`, or undefined (a stale one is dropped). */
  get(key: string, version: string): CachedAnswer | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    if (entry.version !== version) {
      this.bytes -= entry.answer.body.byteLength
      return undefined
    }
    this.entries.set(key, entry)
    return entry.answer
  }

  set(key: string, version: string, answer: CachedAnswer): void {
    if (answer.body.byteLength > this.maxBytes / 8) return
    const previous = this.entries.get(key)
    if (previous) {
      this.bytes -= previous.answer.body.byteLength
      this.entries.delete(key)
    }
    this.entries.set(key, { version, answer })
    this.bytes += answer.body.byteLength
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.bytes -= entry.answer.body.byteLength
    }
  }
}
