import type { EventsDatedAfter } from '../entities/skill-event-store.js'

/** The summary's line on skill events dated after a run's as-of date; undefined when there are none. */
export function futureDatedWarning(future: EventsDatedAfter): string | undefined {
  if (future.events === 0) return undefined
  return `warning: ${future.events} skill events are dated after ${future.after} (the latest ${future.latest}); they count only from their dates on: check the source's dates (its clock, a day-month swap)`
}
