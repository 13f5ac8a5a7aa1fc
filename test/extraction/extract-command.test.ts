import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

describe('extract on the command line', () => {
  const scratch = tempDir()
  afterAll(() => scratch.cleanup())

  it('writes one JSON array per line of --file with --json, nothing else, and exits 0', async () => {
    const file = join(scratch.dir, 'lines.txt')
    writeFileSync(file, 'Built ETL pipelines in Python and SQL\n\nBoekhouding en btw-aangiftes voor kmo’s\n')
    const result = await runCli([
      'extract',
      '--file',
      file,
      '--json',
      '--top',
      '3',
      '--data-dir',
      scratch.dir,
    ])
    expect(result.exitCode, result.stderr as string).toBe(0)
    const lines = (result.stdout as string).split('\n').filter((line) => line.length > 0)
    expect(lines).toHaveLength(3)
    const parsed = lines.map((line) => JSON.parse(line) as { skill_id: string }[])
    for (const skills of parsed) expect(Array.isArray(skills)).toBe(true)
    expect(parsed[0]?.map((skill) => skill.skill_id)).toContain('skl-python')
    expect(parsed[1]).toEqual([])
  })
})
