import { PostalCodeTable } from '../geo/postal-codes.js'
import type { LanguageLevel, LocationOrAddress } from '../schemas/common.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { StampedCache, stampedIndex } from '../store/stamped-cache.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { Props } from './custom-property-rules.js'
import { weighJobs } from './job-index.js'
import type { WeightedJobs } from './job-match-data.js'
import {
  entityIds,
  forEachRow,
  lowDataFlags,
  type ProfileColumns,
  readProfileColumns,
  withSkillNumbering,
} from './profile-columns.js'
import { featuresKey, type ScoringFeatures } from './scoring-model.js'

/**
 * The in-memory index of vacancy matching for one tenant, vendor and feature set: every active
 * vacancy with its weighted skills (idf over all vacancy profiles of the vendor), its place
 * (postal codes resolved once), its language requirements, job and job family, custom
 * properties and update time. Built on first use and kept while the data is unchanged, so that
 * one employee's request is a pass over arrays.
 */
export interface VacancyIndex {
  vendor: ExternalVendor
  features: ScoringFeatures
  stamp: string
  ids: string[]
  titles: string[]
  skillIds: string[]
  skillIndex: Map<string, number>
  targets: WeightedJobs
  jobId: (string | null)[]
  /** The job family of the vacancy's job. */
  familyId: (string | null)[]
  location: (LocationOrAddress | null)[]
  /** NaN when the location is unknown. */
  lat: Float64Array
  lng: Float64Array
  /** Why a location is unknown (no location, or an address not in the postal-code table). */
  locationNote: (string | null)[]
  /** Language requirements: langStart[i] … langStart[i + 1] in langCode / langLevel. */
  langStart: Int32Array
  langCode: string[]
  langLevel: Uint8Array
  customProperties: Props[]
  updatedAt: Float64Array
  /** The postal codes of the countries vacancies are in (also places employees and requests there). */
  postal: PostalCodeTable | undefined
  /** Employees' skills in this index's skill numbering. */
  employees: EmployeeSkills
  seconds: number
}

/**
 * Every employee's profile (of the vendor) in memory, its skills numbered like the vacancy index
 * (a skill no vacancy asks for cannot count), with the low-data flag: a request then needs no
 * DuckDB scan of the profile table, whose point lookups cost milliseconds.
 */
export interface EmployeeSkills {
  ids: string[]
  position: Map<string, number>
  skills: ProfileColumns
  lowData: Uint8Array
}

const cache = new StampedCache<VacancyIndex>()

/**
 * The vacancy index of a tenant (see VacancyIndex), rebuilt when its data changed; with the
 * caller's data version (see `jobIndex`) the stamp is asked only when the version moved.
 */
export async function vacancyIndex(
  database: TenantDatabase,
  vendor: ExternalVendor,
  features: ScoringFeatures,
  dataVersion?: string,
): Promise<VacancyIndex> {
  return stampedIndex(
    cache,
    database,
    featuresKey(vendor, features),
    dataVersion,
    ['vacancies', 'jobs', 'employees', 'profiles', 'postal_codes'],
    (stamp) => buildVacancyIndex(database, vendor, features, stamp),
  )
}

async function buildVacancyIndex(
  database: TenantDatabase,
  vendor: ExternalVendor,
  features: ScoringFeatures,
  stamp: string,
): Promise<VacancyIndex> {
  const started = performance.now()
  const ids = await entityIds(database, 'active_vacancies')
  const employeeIds = await entityIds(database, 'employees')
  // Vacancies' skills are numbered; employees' skills are read in the same numbering (a skill no
  // vacancy asks for cannot count).
  const { skillIds, profiles, employeeProfiles } = await withSkillNumbering(
    database,
    vendor,
    ['active_vacancies'],
    async (numbering) => ({
      skillIds: numbering.ids,
      profiles: await readProfileColumns(database, 'active_vacancies', vendor, ids, numbering),
      employeeProfiles: await readProfileColumns(database, 'employees', vendor, employeeIds, numbering),
    }),
  )
  const skillIndex = new Map(skillIds.map((id, position) => [id, position]))
  const specificityOver = await vacancySpecificity(database, vendor, skillIndex)
  const count = ids.length
  const index: VacancyIndex = {
    vendor,
    features,
    stamp,
    ids,
    titles: new Array(count).fill(''),
    skillIds,
    skillIndex,
    targets: weighJobs(profiles, skillIds, features, specificityOver),
    jobId: new Array(count).fill(null),
    familyId: new Array(count).fill(null),
    location: new Array(count).fill(null),
    lat: new Float64Array(count).fill(Number.NaN),
    lng: new Float64Array(count).fill(Number.NaN),
    locationNote: new Array(count).fill(null),
    langStart: new Int32Array(count + 1),
    langCode: [],
    langLevel: new Uint8Array(0),
    customProperties: new Array(count).fill(null),
    updatedAt: new Float64Array(count).fill(Number.NaN),
    postal: undefined,
    employees: {
      ids: employeeIds,
      position: new Map(employeeIds.map((id, position) => [id, position])),
      skills: employeeProfiles,
      lowData: await lowDataFlags(database, 'employees', vendor, employeeIds),
    },
    seconds: 0,
  }
  const languages = await readVacancies(database, index)
  await placeVacancies(database, index)
  packLanguages(index, languages)
  index.seconds = (performance.now() - started) / 1000
  return index
}

/**
 * df and N of the vacancies' skills: specificity counts every vacancy profile of the vendor,
 * active or not, so that a vacancy closing does not move the scores of the others.
 */
async function vacancySpecificity(
  database: TenantDatabase,
  vendor: ExternalVendor,
  skillIndex: Map<string, number>,
): Promise<{ documentFrequency: Int32Array; targets: number }> {
  const documentFrequency = new Int32Array(skillIndex.size)
  await forEachRow(
    database,
    `SELECT skill_id, count(*)::INTEGER FROM profile_skills WHERE entity_type = 'vacancy' AND external_vendor = $1 GROUP BY skill_id`,
    [vendor],
    2,
    (values) => {
      const position = skillIndex.get(values[0] as string)
      if (position !== undefined) documentFrequency[position] = values[1] as number
    },
  )
  const counted = await database.one<{ n: number }>(
    `SELECT count(DISTINCT entity_id)::INTEGER AS n FROM profile_skills WHERE entity_type = 'vacancy' AND external_vendor = $1`,
    [vendor],
  )
  return { documentFrequency, targets: counted?.n ?? 0 }
}

/**
 * Reads the active vacancies' records into the index (title, job and its family, location,
 * custom properties, update time); returns their language requirements.
 */
async function readVacancies(database: TenantDatabase, index: VacancyIndex): Promise<LanguageLevel[][]> {
  const families = new Map<string, string | null>()
  await forEachRow(database, 'SELECT external_id, job_family_id FROM jobs', [], 2, (values) => {
    families.set(values[0] as string, (values[1] as string | null) ?? null)
  })
  const position = new Map(index.ids.map((id, at) => [id, at]))
  const languages: LanguageLevel[][] = new Array(index.ids.length).fill(null).map(() => [])
  await forEachRow(
    database,
    `SELECT external_id, doc->>'title', job_id, (doc->'location')::VARCHAR, (doc->'languages')::VARCHAR,
            (doc->'custom_properties')::VARCHAR, epoch_ms(updated_at)::DOUBLE
       FROM vacancies WHERE status = 'active'`,
    [],
    7,
    (values) => {
      const at = position.get(values[0] as string)
      if (at === undefined) return
      index.titles[at] = (values[1] as string | null) ?? ''
      const job = (values[2] as string | null) ?? null
      index.jobId[at] = job
      index.familyId[at] = job ? (families.get(job) ?? null) : null
      index.location[at] = values[3] ? (JSON.parse(values[3] as string) as LocationOrAddress) : null
      languages[at] = values[4] ? (JSON.parse(values[4] as string) as LanguageLevel[]) : []
      index.customProperties[at] = values[5] ? (JSON.parse(values[5] as string) as Props) : null
      index.updatedAt[at] = values[6] as number
    },
  )
  return languages
}

/**
 * Places every vacancy (lat/lng, or its address through the postal codes of the vacancies'
 * countries, loaded once into the index); notes why a place is unknown.
 */
async function placeVacancies(database: TenantDatabase, index: VacancyIndex): Promise<void> {
  const countries = new Set<string>()
  for (const location of index.location) {
    if (location && 'country' in location) countries.add(location.country)
  }
  const postal = countries.size > 0 ? await PostalCodeTable.load(database, countries) : undefined
  index.postal = postal
  for (let at = 0; at < index.ids.length; at++) {
    const location = index.location[at]
    if (!location) {
      index.locationNote[at] = 'the vacancy has no location'
    } else if ('lat' in location) {
      index.lat[at] = location.lat
      index.lng[at] = location.lng
    } else {
      const place = postal?.lookup(location.country, location.postal_code)
      if (place) {
        index.lat[at] = place.lat
        index.lng[at] = place.lng
      } else {
        index.locationNote[at] =
          `the vacancy's address ${location.country} ${location.postal_code} is not in the postal-code table`
      }
    }
  }
}

/** The vacancies' language requirements as rows: langStart, langCode, langLevel (2 when not stated). */
function packLanguages(index: VacancyIndex, languages: LanguageLevel[][]): void {
  let rows = 0
  for (const list of languages) rows += list.length
  index.langLevel = new Uint8Array(rows)
  let row = 0
  for (let at = 0; at < index.ids.length; at++) {
    for (const requirement of languages[at] as LanguageLevel[]) {
      index.langCode.push(requirement.language)
      index.langLevel[row++] = requirement.level ?? 2
    }
    index.langStart[at + 1] = row
  }
}
