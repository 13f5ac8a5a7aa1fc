import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Runs `work` and reports its wall time and the peak RSS of this process while it ran. */
export async function measure<T>(
  work: () => Promise<T>,
): Promise<{ result: T; seconds: number; peakRssMiB: number }> {
  let peak = process.memoryUsage().rss
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 20)
  const started = performance.now()
  try {
    const result = await work()
    return {
      result,
      seconds: (performance.now() - started) / 1000,
      peakRssMiB: Math.round(Math.max(peak, process.memoryUsage().rss) / 1048576),
    }
  } finally {
    clearInterval(sampler)
  }
}

/** A scratch folder for one benchmark, removed by `cleanup`. */
export function scratchDir(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `skillhouse-bench-${name}-`))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Scale of the benchmarks: 1 is the size the issues name; BENCH_SCALE=0.1 for a quick look. */
export const SCALE = Number(process.env.BENCH_SCALE ?? '1')
export const scaled = (count: number) => Math.max(1, Math.round(count * SCALE))
