import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import {
  ensureDataDir,
  resolveDataDir,
  tenantDatabaseFile,
  tenantsFile,
} from '../../src/tenants/data-directory.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
const home = process.env.SKILLHOUSE_HOME
afterEach(() => {
  if (home === undefined) delete process.env.SKILLHOUSE_HOME
  else process.env.SKILLHOUSE_HOME = home
})
afterAll(() => temp.cleanup())

describe('the data directory', () => {
  it('is --data-dir, else $SKILLHOUSE_HOME, else ./.skillhouse, made absolute', () => {
    process.env.SKILLHOUSE_HOME = join(temp.dir, 'home')
    expect(resolveDataDir('relative/data')).toBe(resolve('relative/data'))
    expect(resolveDataDir()).toBe(join(temp.dir, 'home'))
    delete process.env.SKILLHOUSE_HOME
    expect(resolveDataDir()).toBe(resolve('.skillhouse'))
  })

  it('is made with its parents when missing', () => {
    const dir = join(temp.dir, 'a', 'b')
    expect(ensureDataDir(dir)).toBe(dir)
    expect(existsSync(dir)).toBe(true)
    expect(ensureDataDir(dir)).toBe(dir)
  })

  it('holds tenants.json and one database file per tenant', () => {
    expect(tenantsFile('/data')).toBe(join('/data', 'tenants.json'))
    expect(tenantDatabaseFile('/data', 'acme')).toBe(join('/data', 'acme.duckdb'))
  })
})
