import { createHash } from 'node:crypto'
import { exportAllJobs } from '../../src/matching/match-jobs.js'
import { withTenant } from '../../src/tenants/tenant-service.js'
import { measure } from './measure.js'

/**
 * `node match-new-process.js <dataDir> <tenant>`: the full top-10 export of every job in a fresh
 * process (what the next `match jobs --all-pages` or nightly export does when the profiles have
 * not changed), printed as one JSON line: its time, how the index was got, the response's digest
 * and the process's peak RSS while it ran.
 */
const [dataDir, name] = process.argv.slice(2)
if (!dataDir || !name) {
  console.error('usage: match-new-process <dataDir> <tenant>')
  process.exit(2)
}
await withTenant(dataDir, name, async (tenant) => {
  const run = await measure(() => exportAllJobs(tenant, { filters: [], weights: [] }))
  console.log(
    JSON.stringify({
      seconds: run.seconds,
      index_seconds: run.result.stats.index_seconds,
      index_source: run.result.stats.index_source,
      digest: createHash('sha1').update(JSON.stringify(run.result.response)).digest('hex'),
      peak_rss_mib: run.peakRssMiB,
    }),
  )
})
