import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { tempDir } from '../helpers/temp-tenant.js'

describe('statements kept prepared by a connection (allPrepared)', () => {
  const temp = tempDir()
  let database: TenantDatabase
  beforeAll(async () => {
    database = await TenantDatabase.open(join(temp.dir, 'prepared.duckdb'), { create: true })
    await database.run('CREATE TABLE numbers AS SELECT range AS n, range::VARCHAR AS s FROM range(100)')
  })
  afterAll(() => {
    database.close()
    temp.cleanup()
  })

  it('answers as `all` does, with the values of each call bound anew', async () => {
    const sql = 'SELECT n FROM numbers WHERE s IN ($1, $2) ORDER BY n'
    for (const pair of [
      ['3', '7'],
      ['50', '1'],
      ['x', '99'],
    ]) {
      expect(await database.allPrepared(sql, pair)).toEqual(await database.all(sql, pair))
    }
    expect(await database.allPrepared(sql, ['50', '1'])).toEqual([{ n: 1 }, { n: 50 }])
  })

  it('gives each of calls made at once its own answer', async () => {
    const sql = 'SELECT count(*)::INTEGER AS c FROM numbers WHERE n < $1'
    const limits = [5, 10, 20, 40, 80]
    const answers = await Promise.all(limits.map((limit) => database.allPrepared(sql, [limit])))
    expect(answers).toEqual(limits.map((limit) => [{ c: limit }]))
  })

  it('stays right past the number of statements it keeps', async () => {
    for (let round = 0; round < 2; round++) {
      for (let k = 0; k < 80; k++) {
        const rows = await database.allPrepared(`SELECT n + ${k} AS m FROM numbers WHERE n = $1`, [k])
        expect(rows).toEqual([{ m: 2 * k }])
      }
    }
  })

  it('runs writes, inside a transaction too', async () => {
    await database.run('CREATE TABLE written (n INTEGER)')
    const insert = 'INSERT INTO written VALUES ($1)'
    await database.transaction(async () => {
      await database.allPrepared(insert, [1])
      await database.allPrepared(insert, [2])
    })
    expect(await database.all('SELECT n FROM written ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }])
  })
})
