import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import type { TenantDatabase } from '../store/tenant-database.js'
import { loadDefaultVocabulary } from '../tenants/initialise-tenant.js'
import { writeFileAtomic } from '../util/atomic-file.js'
import { codeStamp } from '../util/module-source.js'
import { deserialiseVocabulary, serialiseVocabulary } from './compile-vocabulary.js'
import type { TextLanguageCode } from './detect-language.js'
import { SkillExtractor } from './skill-extractor.js'
import type { StemPairs } from './text-tokens.js'
import { TEXT_LANGUAGES } from './vocabulary-input.js'
import { factsOfTenant, factsOfVocabulary, labelsOfTenant, labelsOfVocabulary } from './vocabulary-labels.js'

const compiled = new Map<string, { signature: string; extractor: SkillExtractor }>()

/**
 * The extractor of a tenant's vocabulary for a vendor, compiled once and kept by the vocabulary's
 * signature: in this process, and in a file beside the database for the next one (a CLI run, a
 * server restart), so that a run that changes little does not start by compiling thousands of
 * skills again.
 */
export async function extractorFor(database: TenantDatabase, vendor: string): Promise<SkillExtractor> {
  const signature = await vocabularySignature(database, vendor)
  const key = `${database.path}|${vendor}`
  const known = compiled.get(key)
  if (known && known.signature === signature) return known.extractor
  const file = cacheFile(database.path, vendor)
  const stamp = `${compilerStamp()}|${signature}`
  let extractor = readCompiled(file, stamp)
  if (!extractor) {
    extractor = SkillExtractor.compile(
      await labelsOfTenant(database, vendor),
      await factsOfTenant(database, vendor),
    )
    writeCompiled(file, stamp, extractor)
  }
  readStems(stemsFile(database.path, vendor), extractor)
  compiled.set(key, { signature, extractor })
  return extractor
}

/** New stems that make `saveStems` write: this many at least, and a twentieth of those known. */
const MIN_NEW_STEMS_TO_SAVE = 200

/**
 * Keeps the stems an extractor has learned (words of the texts it read) for the next process,
 * beside the database: a run that reads mostly known text (an incremental derivation, a restarted
 * server) then stems only the words that are new to it. Stemming was a third of re-deriving
 * 1,000 employees' 40,000 events in a fresh process. A write costs as much as the whole cache
 * (one JSON text of every word, on the calling thread), so it waits until the new words are a
 * twentieth of those known (and at least 200): the server's background derivations, each with a
 * few new words, rewrite the file rarely, and a run with fewer new words leaves them unkept.
 */
export function saveStems(database: TenantDatabase, vendor: string, extractor: SkillExtractor): void {
  const stems = extractor.stems
  if (stems.unsaved < Math.max(MIN_NEW_STEMS_TO_SAVE, stems.size / 20)) return
  const saved = writeCacheFile(
    stemsFile(database.path, vendor),
    JSON.stringify({ stamp: compilerStamp(), stems: stems.pairs() }),
  )
  if (saved) stems.markSaved()
}

/**
 * Forgets the stems learned from a database's texts, in this process and in the files beside it:
 * they are words of employees' events, and a deleted employee's words go with the employee. They
 * are learned again from the texts that remain, as derivations read them.
 */
export function forgetStems(database: TenantDatabase): void {
  for (const [key, entry] of compiled) if (key.startsWith(`${database.path}|`)) entry.extractor.stems.clear()
  const directory = dirname(database.path)
  const prefix = `${basename(database.path)}.`
  let files: string[]
  try {
    files = readdirSync(directory)
  } catch {
    return
  }
  for (const file of files) {
    if (file.startsWith(prefix) && file.endsWith('.stems')) rmSync(join(directory, file), { force: true })
  }
}

/** Where the stems learned from a database's texts are saved: beside the database file. */
function stemsFile(databasePath: string, vendor: string): string {
  return `${databasePath}.${encodeURIComponent(vendor)}.stems`
}

/** Takes in the stems saved in `file` by the same stemmer version; anything else is ignored (a cache). */
function readStems(file: string, extractor: SkillExtractor) {
  let saved: { stamp?: unknown; stems?: unknown }
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return
  }
  if (saved.stamp !== compilerStamp() || typeof saved.stems !== 'object' || saved.stems === null) return
  const stems: StemPairs = {}
  for (const [language, list] of Object.entries(saved.stems)) {
    if (!(TEXT_LANGUAGES as readonly string[]).includes(language) || !Array.isArray(list)) return
    if (!list.every((item) => typeof item === 'string')) return
    stems[language as TextLanguageCode] = list
  }
  extractor.stems.remember(stems, { unsaved: false })
}

/**
 * What identifies a vendor's vocabulary: its skill count, last update and the hash of every
 * skill's content (names and aliases included), so that any change to it changes the signature.
 */
export async function vocabularySignature(database: TenantDatabase, vendor: string): Promise<string> {
  const row = await database.one<{ signature: string }>(
    `SELECT count(*) || ':' || coalesce(max(updated_at)::VARCHAR, '') || ':' || coalesce(md5(string_agg(content_hash, ',' ORDER BY external_id)), '') AS signature
     FROM skills WHERE external_vendor = $1`,
    [vendor],
  )
  return row?.signature ?? ''
}

let embedded: SkillExtractor | undefined

/** The extractor of the embedded default vocabulary, for work outside any tenant. */
export function defaultExtractor(): SkillExtractor {
  if (!embedded) {
    const domains = loadDefaultVocabulary()
    embedded = SkillExtractor.compile(labelsOfVocabulary(domains), factsOfVocabulary(domains))
  }
  return embedded
}

/** Where a database's compiled vocabulary of a vendor is saved: beside the database file. */
function cacheFile(databasePath: string, vendor: string): string {
  return `${databasePath}.${encodeURIComponent(vendor)}.vocabulary`
}

/** The extractor saved in `file` when it was compiled from the same vocabulary by the same compiler. */
function readCompiled(file: string, stamp: string): SkillExtractor | undefined {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return undefined
  }
  try {
    const vocabulary = deserialiseVocabulary(bytes, stamp)
    return vocabulary ? SkillExtractor.load(vocabulary) : undefined
  } catch {
    // A file cut short or from another format: compiled again and written over.
    return undefined
  }
}

/** Saves a compiled vocabulary for later processes. */
function writeCompiled(file: string, stamp: string, extractor: SkillExtractor) {
  writeCacheFile(file, serialiseVocabulary(extractor.compiled, stamp))
}

/** Writes a cache file whole or not at all; a cache, so a failure only costs recomputing it. Whether it was written. */
function writeCacheFile(file: string, content: string | Uint8Array): boolean {
  try {
    writeFileAtomic(file, content)
    return true
  } catch {
    return false
  }
}

let stamp: string | undefined

/**
 * What a compiled vocabulary depends on besides the labels: the compiler and tokenizer source
 * and the stemmer's version. A kept vocabulary from another version of either is not used.
 */
function compilerStamp(): string {
  if (stamp === undefined) {
    const hash = createHash('sha1')
    hash.update(codeStamp(['compile-vocabulary', 'compile-ranker', 'vocabulary-input'], import.meta.url))
    hash.update(String(createRequire(import.meta.url)('snowball-stemmers/package.json').version))
    stamp = hash.digest('base64url')
  }
  return stamp
}
