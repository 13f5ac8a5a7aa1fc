/** A 0–1 score as the report shows it: rounded to two decimals. */
export const shownScore = (value: number): number => Math.round(value * 100) / 100
/** Just under the lowest score shown as `value` (two decimals): a bound to count the scores shown as `value` or above. */
export const belowShownAs = (value: number): number => value - 0.005 - 1e-9

/**
 * Numbers and dates in the reader's locale (Intl), for the page, the charts and the readings:
 * one place, so that a figure reads the same wherever it appears.
 */
export class LocaleFormat {
  private readonly integer: Intl.NumberFormat
  private readonly percent: Intl.NumberFormat
  private readonly score: Intl.NumberFormat
  private readonly date: Intl.DateTimeFormat
  private readonly dateTime: Intl.DateTimeFormat

  constructor(readonly locale: string) {
    this.integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 })
    this.percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 })
    this.score = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    this.date = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' })
    this.dateTime = new Intl.DateTimeFormat(locale, {
      dateStyle: 'long',
      timeStyle: 'short',
      timeZone: 'UTC',
    })
  }

  count(value: number): string {
    return this.integer.format(value)
  }

  /** A share 0–1 as a whole percentage. */
  share(value: number): string {
    return this.percent.format(value)
  }

  /** A 0–1 match score with two decimals. */
  matchScore(value: number): string {
    return this.score.format(value)
  }

  /** A date (YYYY-MM-DD) or a timestamp (ISO, UTC). */
  day(value: string): string {
    return this.date.format(new Date(value.length === 10 ? `${value}T00:00:00Z` : value))
  }

  moment(value: string): string {
    return `${this.dateTime.format(new Date(value))} UTC`
  }

  /**
   * The locale as a d3-format number definition (vega's `locale.number`), so that axis labels
   * group and separate digits as the page does.
   */
  get chartNumberLocale(): {
    decimal: string
    thousands: string
    grouping: number[]
    currency: [string, string]
  } {
    const parts = new Intl.NumberFormat(this.locale, { useGrouping: true }).formatToParts(1234567.5)
    return {
      decimal: parts.find((part) => part.type === 'decimal')?.value ?? '.',
      thousands: parts.find((part) => part.type === 'group')?.value ?? ',',
      grouping: [3],
      currency: ['', ''],
    }
  }
}
