/** What a GET answered: status, JSON text and headers. */
export interface CachedAnswer {
  status: 200
  json: string
  headers: Record<string, string>
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
      this.bytes -= entry.answer.json.length
      return undefined
    }
    this.entries.set(key, entry)
    return entry.answer
  }

  set(key: string, version: string, answer: CachedAnswer): void {
    if (answer.json.length > this.maxBytes / 8) return
    const previous = this.entries.get(key)
    if (previous) {
      this.bytes -= previous.answer.json.length
      this.entries.delete(key)
    }
    this.entries.set(key, { version, answer })
    this.bytes += answer.json.length
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.bytes -= entry.answer.json.length
    }
  }
}
