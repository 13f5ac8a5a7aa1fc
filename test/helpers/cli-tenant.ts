import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { IngestSummary } from '../../src/ingest/ingest-paths.js'
import type { Reject } from '../../src/ingest/rejects.js'
import { runCli } from './temp-tenant.js'

let tenants = 0

/** A fresh data directory under `root` holding one tenant `name`, created by the built CLI. */
export async function newCliTenant(root: string, name = 'x'): Promise<string> {
  const dataDir = join(root, `tenant-${++tenants}`)
  const created = await runCli(['tenant', 'create', name, '--region', 'eu', '--data-dir', dataDir])
  expect(created.exitCode, String(created.stderr)).toBe(0)
  return dataDir
}

/** Every reject an ingest wrote, in file order, read back from its rejects files. */
export const rejectsOf = (summary: IngestSummary): Reject[] =>
  summary.files.flatMap((file) =>
    file.rejects_file
      ? readFileSync(file.rejects_file, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Reject)
      : [],
  )
