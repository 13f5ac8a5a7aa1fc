import { WebhookDeliverySettings } from '../schemas/webhooks.js'

/**
 * The retry policy of webhook delivery. An event is retried for a time window (24 h by default)
 * counted from when it was queued for a subscription (or replayed); the waits between attempts
 * grow exponentially from a base up to a cap, each drawn between half and the whole of its
 * nominal value (jitter), so that consumers coming back are not hit by every retry at once. An
 * attempt is never planned past the end of the window: the last one is made when it ends, and
 * only a failure then makes the event dead.
 */

/** The server's settings with their defaults (24 h window, 1 s base, 1 h cap, 10 s per attempt). */
export function deliverySettings(settings: Partial<WebhookDeliverySettings> = {}): WebhookDeliverySettings {
  const defined = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined))
  return WebhookDeliverySettings.parse(defined)
}

/** A subscription's own policy as stored: null takes the server's value. */
export type OwnPolicy = {
  window_ms: number | null
  backoff_base_ms: number | null
  backoff_cap_ms: number | null
  timeout_ms: number | null
}

/** The policy a subscription is delivered with: its own values over the server's. */
export function effectivePolicy(server: WebhookDeliverySettings, own: OwnPolicy): WebhookDeliverySettings {
  const value = (own: number | null, fallback: number) => (own === null ? fallback : Number(own))
  return {
    windowMs: value(own.window_ms, server.windowMs),
    backoffBaseMs: value(own.backoff_base_ms, server.backoffBaseMs),
    backoffCapMs: value(own.backoff_cap_ms, server.backoffCapMs),
    timeoutMs: value(own.timeout_ms, server.timeoutMs),
  }
}

type Backoff = Pick<WebhookDeliverySettings, 'backoffBaseMs' | 'backoffCapMs'>

/** The nominal wait after the `failed`-th failed attempt: min(cap, base · 2^(failed − 1)). */
export function nominalDelay(failed: number, settings: Backoff): number {
  const exponent = Math.min(60, Math.max(0, failed - 1))
  return Math.min(settings.backoffCapMs, settings.backoffBaseMs * 2 ** exponent)
}

/**
 * The wait after the `failed`-th failed attempt: a uniform draw between half the nominal wait and
 * the whole of it.
 */
export function retryDelay(failed: number, settings: Backoff, random: () => number = Math.random): number {
  const nominal = nominalDelay(failed, settings)
  const draw = Math.min(1, Math.max(0, random()))
  return Math.floor(nominal / 2 + draw * (nominal / 2))
}

/** What follows a failed attempt: the event is dead, or it is tried again at `retryAt`. */
export type AfterFailure = { dead: true } | { dead: false; retryAt: Date }

/**
 * Decides on a failed attempt of an event queued at `queuedAt`, the `failed`-th in a row: dead
 * when the window has ended, else a retry after the backoff, never later than the window's end.
 */
export function afterFailure(
  input: { queuedAt: Date; failed: number; now: Date },
  settings: WebhookDeliverySettings,
  random: () => number = Math.random,
): AfterFailure {
  const windowEnd = input.queuedAt.getTime() + settings.windowMs
  const now = input.now.getTime()
  if (now >= windowEnd) return { dead: true }
  const retryAt = Math.min(now + retryDelay(input.failed, settings, random), windowEnd)
  return { dead: false, retryAt: new Date(retryAt) }
}

/** One planned attempt of the schedule. */
export interface ScheduledAttempt {
  /** 1 for the first attempt. */
  attempt: number
  /** The nominal wait before it (ms); 0 for the first. */
  nominalWaitMs: number
  /** Its time after the event was queued when every wait is drawn shortest, and longest (ms). */
  earliestMs: number
  latestMs: number
}

/**
 * The attempts of an event whose consumer never answers, each failing at once, when every wait
 * is drawn longest: the schedule docs/webhooks.md tabulates. The draws only move attempts
 * earlier (down to `earliestMs`), which adds attempts before the window's end; the last attempt
 * is always at the window's end.
 */
export function retrySchedule(settings: WebhookDeliverySettings): ScheduledAttempt[] {
  const schedule: ScheduledAttempt[] = [{ attempt: 1, nominalWaitMs: 0, earliestMs: 0, latestMs: 0 }]
  let latest = 0
  let earliest = 0
  for (let failed = 1; latest < settings.windowMs; failed++) {
    const wait = nominalDelay(failed, settings)
    latest = Math.min(settings.windowMs, latest + wait)
    earliest = Math.min(settings.windowMs, earliest + wait / 2)
    schedule.push({ attempt: failed + 1, nominalWaitMs: wait, earliestMs: earliest, latestMs: latest })
    if (wait === 0) break
  }
  return schedule
}
