/**
 * What one benchmark module returns to the bench runner: a name, the measured figures (times,
 * rates, sizes) and the ratios that are compared with their goals.
 */
export interface BenchResult {
  name: string
  figures: Record<string, number | string>
  ratios: Record<string, number>
}
