import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs'
import { basename, extname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { errors } from '../errors/skillhouse-error.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { fixturesDir } from '../util/project-paths.js'

/**
 * Postal codes → coordinates, for the geo-distance filters and weights of vacancy matching (2.5,
 * 2.13, 2.14): an Address `{country, postal_code}` is placed at its postal code's centroid.
 *
 * The table is loaded by `skillhouse geo import` from GeoNames postal-code files, in either of
 * their two shapes: the CSV with a header
 * `country_code,zipcode,place,state,state_code,province,province_code,community,community_code,latitude,longitude`,
 * or GeoNames' own tab-separated dump (`allCountries.txt`, `BE.txt`: 12 columns, no header).
 */

/**
 * The postal codes the demo tenant's addresses use: a GeoNames extract (CC BY 4.0,
 * fixtures/postal-codes/README.md) that `skillhouse demo` loads with `importPostalCodes`.
 */
export const demoPostalCodes = (): string => fixturesDir('postal-codes', 'demo.csv')

/** The header of the CSV shape. */
export const GEONAMES_CSV_HEADER = [
  'country_code',
  'zipcode',
  'place',
  'state',
  'state_code',
  'province',
  'province_code',
  'community',
  'community_code',
  'latitude',
  'longitude',
] as const

/** A place a postal code stands for: the mean of its GeoNames places' coordinates. */
export interface PostalPlace {
  country: string
  postal_code: string
  place: string | null
  lat: number
  lng: number
}

/** The form postal codes are stored and compared in: upper case, no white space. */
export function postalKey(code: string): string {
  return code.trim().toUpperCase().replace(/\s+/g, '')
}

/**
 * The keys tried, in order, for a postal code as people write it: the whole code; its first part
 * (`1012 AB` → `1012`, `12345-6789` → `12345`, `SW1A 1AA` → `SW1A`); for GB the outward code of a
 * code written without its space (the inward code is always 3 characters); and the leading digits
 * (`1012AB` → `1012`). GeoNames holds only outward codes for GB and 4-digit codes for NL.
 */
export function postalKeyCandidates(country: string, code: string): string[] {
  const raw = code.trim().toUpperCase()
  const compact = raw.replace(/\s+/g, '')
  const candidates = [compact]
  const first = raw.split(/[\s-]+/)[0]
  if (first) candidates.push(first)
  if (country.toUpperCase() === 'GB' && compact.length >= 5) candidates.push(compact.slice(0, -3))
  const digits = /^\d+/.exec(compact)?.[0]
  if (digits) candidates.push(digits)
  return [...new Set(candidates.filter((candidate) => candidate.length > 0))]
}

/** Postal codes in memory, by country: one Map probe per lookup (vacancy indexes, batches). */
export class PostalCodeTable {
  private constructor(
    private readonly byCountry: Map<string, Map<string, PostalPlace>>,
    readonly rows: number,
  ) {}

  /** Loads the codes of `countries` (all countries when omitted). */
  static async load(database: TenantDatabase, countries?: Iterable<string>): Promise<PostalCodeTable> {
    const wanted = countries
      ? [...new Set([...countries].map((country) => country.toUpperCase()))]
      : undefined
    const sql = 'SELECT country, postal_code, place, lat, lng FROM postal_codes'
    if (wanted === undefined)
      return PostalCodeTable.of(await database.all<PostalPlace & Record<string, unknown>>(sql))
    const places: PostalPlace[] = []
    for (const country of wanted) {
      const rows = await database.all<PostalPlace & Record<string, unknown>>(`${sql} WHERE country = $1`, [
        country,
      ])
      for (const row of rows) places.push(row)
    }
    return PostalCodeTable.of(places)
  }

  /** A table of the places `places` (as `places()` lists them): how a worker thread gets one. */
  static of(places: readonly PostalPlace[]): PostalCodeTable {
    const byCountry = new Map<string, Map<string, PostalPlace>>()
    for (const row of places) {
      let codes = byCountry.get(row.country)
      if (!codes) {
        codes = new Map()
        byCountry.set(row.country, codes)
      }
      codes.set(row.postal_code, row)
    }
    return new PostalCodeTable(byCountry, places.length)
  }

  /** Every place of the table. */
  places(): PostalPlace[] {
    return [...this.byCountry.values()].flatMap((codes) => [...codes.values()])
  }

  /** The place of a postal code (with the fallbacks of `postalKeyCandidates`), or undefined. */
  lookup(country: string, code: string): PostalPlace | undefined {
    const codes = this.byCountry.get(country.toUpperCase())
    if (!codes) return undefined
    for (const key of postalKeyCandidates(country, code)) {
      const place = codes.get(key)
      if (place) return place
    }
    return undefined
  }

  hasCountry(country: string): boolean {
    return this.byCountry.has(country.toUpperCase())
  }
}

/** Looks one postal code up in the database (for a request's location: no table in memory needed). */
export async function lookupPostalCode(
  database: TenantDatabase,
  country: string,
  code: string,
): Promise<PostalPlace | undefined> {
  const upper = country.toUpperCase()
  for (const key of postalKeyCandidates(upper, code)) {
    const row = await database.one<PostalPlace & Record<string, unknown>>(
      'SELECT country, postal_code, place, lat, lng FROM postal_codes WHERE country = $1 AND postal_code = $2',
      [upper, key],
    )
    if (row) return row
  }
  return undefined
}

/** Whether the table holds any code of `country`: decides what an unknown-code message advises. */
export async function countryHasPostalCodes(database: TenantDatabase, country: string): Promise<boolean> {
  const row = await database.one('SELECT 1 AS present FROM postal_codes WHERE country = $1 LIMIT 1', [
    country.toUpperCase(),
  ])
  return row !== undefined
}

/** The sentence that explains an unknown postal code; `field` names where it came from. */
export function unknownPostalCodeMessage(
  field: string,
  country: string,
  code: string,
  countryKnown: boolean,
): string {
  const hint = countryKnown
    ? 'check the code (GB takes outward codes such as SW1A, NL 4-digit codes such as 1012)'
    : `the table holds no postal codes of ${country.toUpperCase()}: load them with \`skillhouse geo import FILE\` (GeoNames postal-code format)`
  return `${field}: postal code '${code}' of country ${country.toUpperCase()} is not in the postal-code table; ${hint}`
}

export interface PostalImportFile {
  file: string
  format: 'csv' | 'geonames_txt'
  rows_read: number
  rows_rejected: number
  /** Distinct postal codes the file holds. */
  codes: number
  countries: string[]
  /** The first rejected lines, with their line numbers and reasons. */
  rejects: { line: number; reason: string }[]
}

export interface PostalImportSummary {
  files: PostalImportFile[]
  /** Per country imported: the number of postal codes it now has (its earlier codes are replaced). */
  countries: { country: string; codes: number }[]
  codes_written: number
  rows_read: number
  rows_rejected: number
  seconds: number
}

const MAX_REJECTS_SHOWN = 20

/** A postal code with the sum of the coordinates of the places it is listed with. */
interface PostalCodeSum {
  country: string
  code: string
  place: string | null
  state: string | null
  latSum: number
  lngSum: number
  places: number
  source: string
}

/**
 * `skillhouse geo import PATH…`: loads GeoNames postal-code files (a file, or every .csv/.txt in a
 * folder) into the tenant's postal-code table. A postal code listed with several places gets the
 * mean of their coordinates. Each country present in the input replaces that country's earlier
 * codes, all in one transaction; rows without a country, a code or valid coordinates are
 * rejected with their line numbers. Unquoted commas inside place names (GeoNames has some) are
 * tolerated: the country and code come first and the coordinates last in every row.
 */
export async function importPostalCodes(
  database: TenantDatabase,
  paths: readonly string[],
  options: { onFile?: (path: string) => void } = {},
): Promise<PostalImportSummary> {
  const started = performance.now()
  const files = planFiles(paths)
  const codes = new Map<string, PostalCodeSum>()
  const summaries: PostalImportFile[] = []
  for (const path of files) {
    options.onFile?.(path)
    summaries.push(await readPostalFile(path, codes))
  }
  const countries = [...new Set([...codes.values()].map((entry) => entry.country))].sort()
  if (countries.length > 0) {
    await database.run('DROP TABLE IF EXISTS postal_codes_staging')
    await database.run(
      'CREATE TEMP TABLE postal_codes_staging (country VARCHAR, postal_code VARCHAR, place VARCHAR, state VARCHAR, lat DOUBLE, lng DOUBLE, places INTEGER, source VARCHAR)',
    )
    const appender = await database.appender('postal_codes_staging')
    for (const entry of codes.values()) {
      appender.appendVarchar(entry.country)
      appender.appendVarchar(entry.code)
      if (entry.place === null) appender.appendNull()
      else appender.appendVarchar(entry.place)
      if (entry.state === null) appender.appendNull()
      else appender.appendVarchar(entry.state)
      appender.appendDouble(round6(entry.latSum / entry.places))
      appender.appendDouble(round6(entry.lngSum / entry.places))
      appender.appendInteger(entry.places)
      appender.appendVarchar(entry.source)
      appender.endRow()
    }
    appender.closeSync()
    await database.transaction(async () => {
      await database.run(
        'DELETE FROM postal_codes WHERE country IN (SELECT DISTINCT country FROM postal_codes_staging)',
      )
      await database.run(
        'INSERT INTO postal_codes SELECT country, postal_code, place, state, lat, lng, places, source, now() FROM postal_codes_staging',
      )
    })
    await database.run('DROP TABLE IF EXISTS postal_codes_staging')
  }
  const perCountry = await database.all<{ country: string; codes: number }>(
    'SELECT country, count(*)::INTEGER AS codes FROM postal_codes GROUP BY country ORDER BY country',
  )
  return {
    files: summaries,
    countries: perCountry.filter((row) => countries.includes(row.country)),
    codes_written: codes.size,
    rows_read: summaries.reduce((sum, file) => sum + file.rows_read, 0),
    rows_rejected: summaries.reduce((sum, file) => sum + file.rows_rejected, 0),
    seconds: (performance.now() - started) / 1000,
  }
}

function planFiles(paths: readonly string[]): string[] {
  if (paths.length === 0) throw errors.badRequest('give at least one postal-code file or folder')
  const files: string[] = []
  for (const given of paths) {
    const path = resolve(given)
    if (!existsSync(path)) throw errors.badRequest(`${given} does not exist`)
    if (statSync(path).isDirectory()) {
      const inside = readdirSync(path)
        .filter((name) => !name.startsWith('.') && ['.csv', '.txt'].includes(extname(name).toLowerCase()))
        .sort()
        .map((name) => join(path, name))
      if (inside.length === 0) throw errors.badRequest(`${given} holds no .csv or .txt postal-code file`)
      files.push(...inside)
    } else files.push(path)
  }
  return files
}

/** Reads one postal-code file into `codes`, and sums up what it read and rejected. */
async function readPostalFile(path: string, codes: Map<string, PostalCodeSum>): Promise<PostalImportFile> {
  const file = basename(path)
  const summary: PostalImportFile = {
    file: path,
    format: 'csv',
    rows_read: 0,
    rows_rejected: 0,
    codes: 0,
    countries: [],
    rejects: [],
  }
  const seen = new Set<string>()
  const countries = new Set<string>()
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  })
  let lineNumber = 0
  let tabs = false
  // One row object, filled again by every line: the import reads millions of lines.
  const row: PostalRow = { country: '', code: '', place: null, state: null, lat: 0, lng: 0 }
  for await (const rawLine of lines) {
    lineNumber++
    const line = lineNumber === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine
    if (lineNumber === 1) {
      tabs = line.includes('\t')
      summary.format = tabs ? 'geonames_txt' : 'csv'
      if (!tabs) {
        checkCsvHeader(line, file)
        continue
      }
    }
    if (line.trim() === '') continue
    summary.rows_read++
    const problem = parsePostalRow(line, tabs, row)
    if (problem !== undefined) {
      summary.rows_rejected++
      if (summary.rejects.length < MAX_REJECTS_SHOWN)
        summary.rejects.push({ line: lineNumber, reason: problem })
      continue
    }
    const key = `${row.country}\t${row.code}`
    seen.add(key)
    countries.add(row.country)
    addPlace(codes, key, row, file)
  }
  summary.codes = seen.size
  summary.countries = [...countries].sort()
  return summary
}

/** A CSV file must begin with the GeoNames postal-code header. */
function checkCsvHeader(line: string, file: string): void {
  const header = line.split(',').map((name) => name.trim().toLowerCase())
  if (header.join(',') !== GEONAMES_CSV_HEADER.join(',')) {
    throw errors.unprocessable(
      `${file}: line 1 must be the GeoNames postal-code header ${GEONAMES_CSV_HEADER.join(',')}; got ${line.slice(0, 200)}`,
    )
  }
}

/** A place of a postal code, as a row of a postal-code file gives it. */
interface PostalRow {
  country: string
  code: string
  place: string | null
  state: string | null
  lat: number
  lng: number
}

/**
 * Reads the place a row gives into `row`, or answers the reason the row is rejected. CSV: country, code, place (may hold
 * unquoted commas), 6 admin fields, latitude, longitude. GeoNames txt (`tabs`): country, code,
 * place, 6 admin fields, latitude, longitude, accuracy.
 */
function parsePostalRow(line: string, tabs: boolean, row: PostalRow): string | undefined {
  const fields = tabs ? line.split('\t') : line.split(',')
  const minimum = tabs ? 11 : GEONAMES_CSV_HEADER.length
  if (fields.length < minimum) return `expected ${minimum} fields; got ${fields.length}`
  const extra = tabs ? 0 : fields.length - GEONAMES_CSV_HEADER.length
  const country = (fields[0] ?? '').trim().toUpperCase()
  const code = postalKey(fields[1] ?? '')
  const place = (tabs ? fields[2] : fields.slice(2, 3 + extra).join(','))?.trim() || null
  const state = (fields[3 + extra] ?? '').trim() || null
  const latText = (fields[9 + extra] ?? '').trim()
  const lngText = (fields[10 + extra] ?? '').trim()
  const lat = Number(latText)
  const lng = Number(lngText)
  if (!/^[A-Z]{2}$/.test(country))
    return `country_code must be an ISO 3166-1 alpha-2 code; got '${fields[0] ?? ''}'`
  if (code === '' || code.length > 20) return `zipcode must be 1 to 20 characters; got '${fields[1] ?? ''}'`
  if (latText === '' || !Number.isFinite(lat) || lat < -90 || lat > 90)
    return `latitude must be a number from -90 to 90; got '${latText}'`
  if (lngText === '' || !Number.isFinite(lng) || lng < -180 || lng > 180)
    return `longitude must be a number from -180 to 180; got '${lngText}'`
  row.country = country
  row.code = code
  row.place = place
  row.state = state
  row.lat = lat
  row.lng = lng
  return undefined
}

/** Adds a place to its postal code: the first place names the code, every place adds its coordinates. */
function addPlace(codes: Map<string, PostalCodeSum>, key: string, row: PostalRow, file: string): void {
  const known = codes.get(key)
  if (known) {
    known.latSum += row.lat
    known.lngSum += row.lng
    known.places++
  } else {
    codes.set(key, {
      country: row.country,
      code: row.code,
      place: row.place,
      state: row.state,
      latSum: row.lat,
      lngSum: row.lng,
      places: 1,
      source: file,
    })
  }
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6
