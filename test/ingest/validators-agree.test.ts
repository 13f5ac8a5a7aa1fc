import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { compiledRows, ndjsonSource } from '../../src/ingest/sql-ingest.js'
import { jsonNode, rowProofCondition } from '../../src/ingest/sql-proof.js'
import { ENTITY_KINDS, type EntityKind } from '../../src/records/entity-kinds.js'
import { fastParseOf } from '../../src/records/fast-parse.js'
import { checksOf, type Def, defOf, stringChecks } from '../../src/records/zod-def.js'
import { tempDir } from '../helpers/temp-tenant.js'

/**
 * The three validators of an ingested row must agree: zod (which explains), the compiled fast
 * parse (which settles the valid rows of the row-by-row path) and the SQL condition that proves
 * rows valid (the SQL path, run by DuckDB on the row as its reader reads it). Rows are generated
 * from each entity kind's schema, field by field, with valid and invalid values.
 *
 * Rows written as JSON.stringify writes zod's output (keys in the schema's order, integral numbers,
 * characters of the Basic Multilingual Plane, free text not near its bound) are decided alike by
 * all three. Other spellings of valid rows (keys in another order, decimals, white space,
 * characters beyond the BMP, free text near its bound) the SQL condition may leave to JavaScript
 * (sql-proof.ts says which), but it never proves a row zod refuses.
 */

const temp = tempDir()
let instance: DuckDBInstance
let connection: Awaited<ReturnType<DuckDBInstance['connect']>>
let file = 0

beforeAll(async () => {
  instance = await DuckDBInstance.create(join(temp.dir, 'validators.duckdb'))
  connection = await instance.connect()
})
afterAll(() => {
  connection.closeSync()
  instance.closeSync()
  temp.cleanup()
})

/** How rows are spelled: as JSON.stringify writes zod's output, or in any valid JSON spelling. */
type Spelling = 'canonical' | 'any'

const BMP_CHARS = [
  'a',
  'Z',
  '7',
  ' ',
  '-',
  '"',
  '\\',
  '\n',
  '\t',
  '\u0001',
  'é',
  '€',
  '中',
  'ß',
  '/',
  ':',
  ',',
  '{',
]
const ASTRAL_CHARS = ['😀', '𝄞']
const DATES = ['2019-12-31', '2020-01-01', '2020-06-30', '2024-02-29']
const BAD_DATES = ['2023-02-29', '2024-13-01', '2024-1-01', '2024-01-01T00:00:00Z', '']
const WRONG_TYPES = fc.constantFrom<unknown>(null, true, 12, 'text', ['a'], { a: 1 })

/** A value mostly valid for the schema, sometimes not. */
const mostly = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: invalid })

function arbitraryOf(schema: z.ZodType, spelling: Spelling): fc.Arbitrary<unknown> {
  const def = defOf(schema)
  switch (def.type) {
    case 'string':
      return stringOf(def, spelling)
    case 'number':
      return numberOf(def, spelling)
    case 'boolean':
      return mostly(fc.boolean(), WRONG_TYPES)
    case 'enum':
      return mostly(fc.constantFrom(...Object.values(def.entries ?? {})), fc.constantFrom('unknown', 'Open'))
    case 'literal':
      return fc.constantFrom(...(def.values ?? []))
    case 'array':
      return mostly(fc.array(arbitraryOf(def.element as z.ZodType, spelling), { maxLength: 3 }), WRONG_TYPES)
    case 'object':
      return mostly(objectOf(def, spelling), WRONG_TYPES)
    case 'union':
      return fc.oneof(...(def.options ?? []).map((option) => arbitraryOf(option, spelling)))
    default:
      throw new Error(`no generator for zod type ${def.type}`)
  }
}

function stringOf(def: Def, spelling: Spelling): fc.Arbitrary<unknown> {
  if (def.format === 'date') return mostly(fc.constantFrom(...DATES), fc.constantFrom(...BAD_DATES, 20240101))
  const { min, max, patterns } = stringChecks(def)
  const chars = spelling === 'any' ? [...BMP_CHARS, ...ASTRAL_CHARS] : BMP_CHARS
  const text = fc.string({ unit: fc.constantFrom(...chars), minLength: min, maxLength: Math.min(max, 20) })
  const valid: fc.Arbitrary<string>[] = [
    patterns.length > 0 ? fc.stringMatching(patterns[0] as RegExp, { maxLength: 12 }) : text,
  ]
  const invalid: fc.Arbitrary<unknown>[] = [WRONG_TYPES]
  // Plain text at the bounds: near the bound of free text only where any spelling goes.
  if (Number.isFinite(max) && (max <= 1000 || spelling === 'any')) {
    valid.push(fc.constant('a'.repeat(max)))
    if (patterns.length === 0) valid.push(fc.constant('é'.repeat(Math.min(max, 50))))
  }
  if (Number.isFinite(max)) invalid.push(fc.constant('a'.repeat(max + 1)))
  if (min > 0) invalid.push(fc.constant('a'.repeat(min - 1)))
  if (patterns.length > 0) invalid.push(fc.constantFrom('bad id', 'é', 'a"b'))
  return mostly(fc.oneof(...valid), fc.oneof(...invalid))
}

function numberOf(def: Def, spelling: Spelling): fc.Arbitrary<unknown> {
  let low = -1000
  let high = 1000
  let integer = false
  for (const check of checksOf(def)) {
    if (check.check === 'greater_than') low = check.value as number
    else if (check.check === 'less_than') high = check.value as number
    else integer = true
  }
  const valid: fc.Arbitrary<number>[] = [fc.integer({ min: low, max: high }), fc.constantFrom(low, high)]
  // A decimal is valid where integers are not required, but only JavaScript writes it as it came.
  if (!integer && spelling === 'any') valid.push(fc.constantFrom(low + 0.5, high - 0.25))
  const invalid = fc.constantFrom<unknown>(low - 1, high + 1, 1e21, '5', null, ...(integer ? [1.5] : []))
  return mostly(fc.oneof(...valid), invalid)
}

/** A strict object: its fields in the schema's order (optional ones present or not), sometimes a required one missing or an unknown one added. */
function objectOf(def: Def, spelling: Spelling): fc.Arbitrary<Record<string, unknown>> {
  const shape = def.shape ?? {}
  const fields = Object.entries(shape).map(([key, schema]) => {
    const fieldDef = defOf(schema)
    const optional = fieldDef.type === 'optional'
    return {
      key,
      optional,
      value: arbitraryOf(optional ? (fieldDef.innerType as z.ZodType) : schema, spelling),
    }
  })
  const present = fc.tuple(...fields.map((field) => (field.optional ? fc.option(field.value) : field.value)))
  const flaw = fc.oneof(
    { weight: 20, arbitrary: fc.constant('none' as const) },
    { weight: 1, arbitrary: fc.constant('missing' as const) },
    { weight: 1, arbitrary: fc.constant('unknown' as const) },
  )
  return fc.tuple(present, flaw, fc.nat()).map(([values, defect, pick]) => {
    const record: Record<string, unknown> = {}
    fields.forEach((field, index) => {
      const value = values[index]
      if (!(field.optional && value === null)) record[field.key] = value
    })
    if (defect === 'unknown') record.extra = 'x'
    const required = fields.filter((field) => !field.optional)
    if (defect === 'missing' && required.length > 0)
      delete record[(required[pick % required.length] as { key: string }).key]
    return record
  })
}

/** Rows of a kind: each option of a discriminated union, its tag sometimes another option's. */
function rowOf(kind: EntityKind, spelling: Spelling): fc.Arbitrary<Record<string, unknown>> {
  const def = defOf(kind.schema)
  if (def.type === 'object') return objectOf(def, spelling)
  const discriminator = def.discriminator as string
  const tags = (def.options ?? []).flatMap(
    (option) => defOf(defOf(option).shape?.[discriminator] as z.ZodType).values ?? [],
  )
  return fc.oneof(...(def.options ?? []).map((option) => objectOf(defOf(option), spelling))).chain((row) =>
    mostly(
      fc.constant(row),
      fc.constantFrom(...tags, 'dynamic').map((tag) => ({ ...row, [discriminator]: tag })),
    ),
  ) as fc.Arbitrary<Record<string, unknown>>
}

/** A row written in any valid JSON spelling: its objects' keys reordered, white space between tokens. */
function respell(row: Record<string, unknown>, seed: number): string {
  const shuffle = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(shuffle)
    if (value === null || typeof value !== 'object') return value
    const entries = Object.entries(value).map(([key, item]) => [key, shuffle(item)] as const)
    if (seed % 2 === 1) entries.reverse()
    return Object.fromEntries(entries)
  }
  const text = JSON.stringify(shuffle(row), null, seed % 3 === 0 ? 0 : 1)
  return text.replaceAll('\n', '')
}

/** The SQL condition's verdict on each line: the SQL path's own for skill events, the compiled proof of the row's fields else. */
async function provenInSql(kind: EntityKind, lines: readonly string[]): Promise<boolean[]> {
  const path = join(temp.dir, `rows-${++file}.ndjson`)
  writeFileSync(path, `${lines.join('\n')}\n`)
  const skillEvents = compiledRows(kind)
  const fields = Object.keys(
    defOf(defOf(kind.schema).type === 'object' ? kind.schema : (defOf(kind.schema).options?.[0] as z.ZodType))
      .shape ?? {},
  )
  const proof =
    kind.storage === 'skill_events' && skillEvents
      ? skillEvents.proof
      : rowProofCondition(kind.schema, (key) => jsonNode(`r.${key}`))
  const source =
    kind.storage === 'skill_events' && skillEvents
      ? skillEvents.prepared(ndjsonSource())
      : `SELECT * FROM read_ndjson($path, columns = {${fields.map((field) => `${field}: 'JSON'`).join(', ')}}, format = 'newline_delimited')`
  // The caller's part of a row's proof: its keys are the row fields (the SQL path counts the
  // rows with others apart, and then leaves the file to JavaScript).
  const keys = `SELECT len(json_keys(json)) = ${fields.length} AS only_fields FROM read_ndjson_objects($path, format = 'newline_delimited')`
  const run = async (sql: string) =>
    (await connection.runAndReadAll(sql.replaceAll('$path', `'${path}'`)))
      .getRowObjects()
      .map((row) => Object.values(row)[0] === true)
  const proven = await run(`SELECT ${proof} AS proven FROM (${source}) r`)
  const onlyFields = await run(keys)
  return proven.map((value, index) => value && onlyFields[index] === true)
}

const COMPILED = ENTITY_KINDS.filter((kind) => fastParseOf(kind.schema) !== null)

describe('the three validators of a row', () => {
  it('are compiled for the kinds whose schemas the compilers cover, both or neither', () => {
    expect(COMPILED.map((kind) => kind.entity)).toEqual(['skill_events', 'match_feedback'])
    for (const kind of ENTITY_KINDS) {
      const proof = rowProofCondition(kind.schema, (key) => jsonNode(`r.${key}`))
      expect(proof !== null, kind.entity).toBe(fastParseOf(kind.schema) !== null)
    }
  })

  for (const kind of COMPILED) {
    const parse = fastParseOf(kind.schema) as (value: unknown) => unknown

    it(`accept exactly the same ${kind.entity} rows, written as JSON.stringify writes them`, async () => {
      const verdicts = { valid: 0, invalid: 0 }
      await fc.assert(
        fc.asyncProperty(
          fc.array(rowOf(kind, 'canonical'), { minLength: 40, maxLength: 120 }),
          async (rows) => {
            const lines = rows.map((row) => JSON.stringify(row))
            const sql = await provenInSql(kind, lines)
            lines.forEach((line, index) => {
              const value = JSON.parse(line)
              const zod = kind.schema.safeParse(value)
              const fast = parse(value)
              expect({ line, fast: fast !== undefined, sql: sql[index] }).toEqual({
                line,
                fast: zod.success,
                sql: zod.success,
              })
              if (zod.success) expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data))
              verdicts[zod.success ? 'valid' : 'invalid']++
            })
          },
        ),
        { numRuns: 12 },
      )
      // Both verdicts occur often enough for the agreement to mean something.
      expect(verdicts.valid).toBeGreaterThan(100)
      expect(verdicts.invalid).toBeGreaterThan(100)
    })

    it(`agree on ${kind.entity} rows in any spelling, the SQL condition proving only rows zod accepts`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(rowOf(kind, 'any'), fc.nat()), { minLength: 40, maxLength: 120 }),
          async (rows) => {
            const lines = rows.map(([row, seed]) => respell(row, seed))
            const sql = await provenInSql(kind, lines)
            lines.forEach((line, index) => {
              const value = JSON.parse(line)
              const zod = kind.schema.safeParse(value)
              expect({ line, fast: parse(value) !== undefined }).toEqual({ line, fast: zod.success })
              if (sql[index]) expect({ line, zod: zod.success }).toEqual({ line, zod: true })
            })
          },
        ),
        { numRuns: 8 },
      )
    })
  }
})
