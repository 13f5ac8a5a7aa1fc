import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import type { VocabLanguage } from '../../src/schemas/index.js'
import { OFFLINE_OPTIONS } from '../../src/store/duckdb-instance.js'
import { importEsco } from '../../src/taxonomy/import-esco.js'
import { SkillNames } from '../../src/taxonomy/skill-names.js'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { createTenant, withTenant } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { SeededRandom } from '../../src/util/seeded-random.js'
import type { BenchResult } from './bench-result.js'
import { measure, scratchDir } from './measure.js'

/** ESCO's hierarchy file header, as in the official download. */
export const ESCO_HIERARCHY_HEADER = [
  'Level 0 URI',
  'Level 0 preferred term',
  'Level 1 URI',
  'Level 1 preferred term',
  'Level 2 URI',
  'Level 2 preferred term',
  'Level 3 URI',
  'Level 3 preferred term',
  'Description',
  'Scope note',
  'Level 0 code',
  'Level 1 code',
  'Level 2 code',
  'Level 3 code',
]
/** The header of the full `skills_<lang>.csv` of the ESCO download. */
export const ESCO_SKILLS_HEADER = [
  'conceptType',
  'conceptUri',
  'skillType',
  'reuseLevel',
  'preferredLabel',
  'altLabels',
  'hiddenLabels',
  'status',
  'modifiedDate',
  'scopeNote',
  'definition',
  'inScheme',
  'description',
]
export const ESCO_RELATIONS_HEADER = ['conceptType', 'conceptUri', 'broaderType', 'broaderUri']

const WORDS: Record<string, { verbs: string[]; nouns: string[] }> = {
  en: {
    verbs: [
      'manage',
      'operate',
      'design',
      'analyse',
      'maintain',
      'install',
      'monitor',
      'develop',
      'inspect',
      'plan',
      'train',
      'assess',
    ],
    nouns: [
      'equipment',
      'records',
      'budgets',
      'machinery',
      'software',
      'contracts',
      'staff',
      'samples',
      'networks',
      'vehicles',
      'materials',
      'customers',
      'reports',
      'processes',
      'systems',
      'projects',
    ],
  },
  nl: {
    verbs: [
      'beheren',
      'bedienen',
      'ontwerpen',
      'analyseren',
      'onderhouden',
      'installeren',
      'bewaken',
      'ontwikkelen',
      'inspecteren',
      'plannen',
      'trainen',
      'beoordelen',
    ],
    nouns: [
      'apparatuur',
      'dossiers',
      'budgetten',
      'machines',
      'software',
      'contracten',
      'personeel',
      'monsters',
      'netwerken',
      'voertuigen',
      'materialen',
      'klanten',
      'rapporten',
      'processen',
      'systemen',
      'projecten',
    ],
  },
  de: {
    verbs: [
      'verwalten',
      'bedienen',
      'entwerfen',
      'analysieren',
      'warten',
      'installieren',
      'überwachen',
      'entwickeln',
      'prüfen',
      'planen',
      'schulen',
      'bewerten',
    ],
    nouns: [
      'Ausrüstung',
      'Akten',
      'Budgets',
      'Maschinen',
      'Software',
      'Verträge',
      'Personal',
      'Proben',
      'Netzwerke',
      'Fahrzeuge',
      'Materialien',
      'Kunden',
      'Berichte',
      'Prozesse',
      'Systeme',
      'Projekte',
    ],
  },
  fr: {
    verbs: [
      'gérer',
      'exploiter',
      'concevoir',
      'analyser',
      'entretenir',
      'installer',
      'surveiller',
      'développer',
      'inspecter',
      'planifier',
      'former',
      'évaluer',
    ],
    nouns: [
      'équipements',
      'dossiers',
      'budgets',
      'machines',
      'logiciels',
      'contrats',
      'personnel',
      'échantillons',
      'réseaux',
      'véhicules',
      'matériaux',
      'clients',
      'rapports',
      'processus',
      'systèmes',
      'projets',
    ],
  },
  es: {
    verbs: [
      'gestionar',
      'operar',
      'diseñar',
      'analizar',
      'mantener',
      'instalar',
      'supervisar',
      'desarrollar',
      'inspeccionar',
      'planificar',
      'formar',
      'evaluar',
    ],
    nouns: [
      'equipos',
      'registros',
      'presupuestos',
      'maquinaria',
      'software',
      'contratos',
      'personal',
      'muestras',
      'redes',
      'vehículos',
      'materiales',
      'clientes',
      'informes',
      'procesos',
      'sistemas',
      'proyectos',
    ],
  },
}

const csvCell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)
const csvLine = (cells: readonly string[]) => `${cells.map(csvCell).join(',')}\n`

function uuid(random: SeededRandom): string {
  const hex = () => random.int(16).toString(16)
  const part = (length: number) => Array.from({ length }, hex).join('')
  return `${part(8)}-${part(4)}-4${part(3)}-a${part(3)}-${part(12)}`
}

/**
 * Writes a deterministic ESCO-format skills pillar to `dir`: skillsHierarchy_en.csv (4 × 7 × 4 × 4
 * groups, like ESCO's 640), broaderRelationsSkillPillar_en.csv, and skills_<lang>.csv for each
 * language (ESCO codes: en, nl, de, fr, es) with newline-separated alternative labels.
 */
export function writeSyntheticEsco(
  dir: string,
  options: { skills?: number; languages?: readonly string[]; seed?: number } = {},
): { skills: number; languages: readonly string[] } {
  const skills = options.skills ?? 14_000
  const languages = options.languages ?? ['en', 'nl', 'de', 'fr', 'es']
  const random = new SeededRandom(options.seed ?? 20261122)
  mkdirSync(dir, { recursive: true })
  const uri = () => `http://data.europa.eu/esco/skill/${uuid(random)}`
  const hierarchy: string[] = [csvLine(ESCO_HIERARCHY_HEADER)]
  const relations: string[] = [csvLine(ESCO_RELATIONS_HEADER)]
  const leafGroups: string[] = []
  const midGroups: string[] = []
  const codes = ['S', 'K', 'T', 'L']
  codes.forEach((code, d) => {
    const l0 = uri()
    const l0Name = `domain ${d + 1}`
    hierarchy.push(csvLine([l0, l0Name, '', '', '', '', '', '', '', '', code]))
    for (let s = 1; s <= 7; s++) {
      const l1 = uri()
      const l1Name = `${l0Name} area ${s}`
      hierarchy.push(
        csvLine([l0, l0Name, l1, l1Name, '', '', '', '', `Skills of ${l1Name}.`, '', code, `${code}${s}`]),
      )
      relations.push(csvLine(['SkillGroup', l1, 'SkillGroup', l0]))
      for (let g = 1; g <= 4; g++) {
        const l2 = uri()
        const l2Name = `${l1Name} group ${g}`
        midGroups.push(l2)
        hierarchy.push(
          csvLine([
            l0,
            l0Name,
            l1,
            l1Name,
            l2,
            l2Name,
            '',
            '',
            '',
            '',
            code,
            `${code}${s}`,
            `${code}${s}.${g}`,
          ]),
        )
        relations.push(csvLine(['SkillGroup', l2, 'SkillGroup', l1]))
        for (let h = 1; h <= 4; h++) {
          const l3 = uri()
          leafGroups.push(l3)
          hierarchy.push(
            csvLine([
              l0,
              l0Name,
              l1,
              l1Name,
              l2,
              l2Name,
              l3,
              `${l2Name}.${h}`,
              `A group of closely related skills,\nnumber ${h}.`,
              '',
              code,
              `${code}${s}`,
              `${code}${s}.${g}`,
              `${code}${s}.${g}.${h}`,
            ]),
          )
          relations.push(csvLine(['SkillGroup', l3, 'SkillGroup', l2]))
        }
      }
    }
  })
  writeFileSync(join(dir, 'skillsHierarchy_en.csv'), hierarchy.join(''))

  const concepts: { uri: string; words: number[]; alts: number[][]; type: string; reuse: string }[] = []
  for (let index = 0; index < skills; index++) {
    const conceptUri = uri()
    const roll = random.next()
    if (roll < 0.7 || index < 10)
      relations.push(csvLine(['KnowledgeSkillCompetence', conceptUri, 'SkillGroup', random.pick(leafGroups)]))
    else if (roll < 0.95) {
      const parent = concepts[random.int(concepts.length)] as { uri: string }
      relations.push(
        csvLine(['KnowledgeSkillCompetence', conceptUri, 'KnowledgeSkillCompetence', parent.uri]),
      )
    } else
      relations.push(csvLine(['KnowledgeSkillCompetence', conceptUri, 'SkillGroup', random.pick(midGroups)]))
    const words = [random.int(12), random.int(16), random.int(16)]
    const alts = Array.from({ length: random.between(2, 9) }, () => [
      random.int(12),
      random.int(16),
      random.int(16),
    ])
    concepts.push({
      uri: conceptUri,
      words,
      alts,
      type: random.next() < 0.35 ? 'knowledge' : 'skill/competence',
      reuse: random.pick(['sector-specific', 'cross-sector', 'transversal', 'occupation-specific']),
    })
  }
  writeFileSync(join(dir, 'broaderRelationsSkillPillar_en.csv'), relations.join(''))

  for (const language of languages) {
    const pool = WORDS[language] ?? (WORDS.en as { verbs: string[]; nouns: string[] })
    const phrase = ([v, a, b]: number[]) =>
      `${pool.verbs[v as number]} ${pool.nouns[a as number]} ${pool.nouns[b as number]}`
    const lines: string[] = [csvLine(ESCO_SKILLS_HEADER)]
    concepts.forEach((concept, index) => {
      const name = `${phrase(concept.words)} ${index}`
      lines.push(
        csvLine([
          'KnowledgeSkillCompetence',
          concept.uri,
          concept.type,
          concept.reuse,
          name,
          concept.alts.map(phrase).join('\n'),
          '',
          'released',
          '2024-01-15T10:00:00.000Z',
          '',
          '',
          'http://data.europa.eu/esco/concept-scheme/member-skills',
          `${name}: the ability to ${phrase(concept.alts[0] ?? concept.words)}, and to explain it to others.`,
        ]),
      )
    })
    writeFileSync(join(dir, `skills_${language}.csv`), lines.join(''))
  }
  return { skills, languages }
}

/** DuckDB's own read_csv of every file of `dir` into plain tables: the floor an import is compared with. */
async function rawReadCsv(dir: string, files: readonly string[], databasePath: string): Promise<number> {
  const instance = await DuckDBInstance.create(databasePath, OFFLINE_OPTIONS)
  const connection = await instance.connect()
  const started = performance.now()
  for (const [index, file] of files.entries()) {
    const ragged = file.startsWith('skillsHierarchy')
    await connection.run(
      `CREATE TABLE raw_${index} AS SELECT * FROM read_csv($path, header = true, all_varchar = true, delim = ',', quote = '"', escape = '"'${ragged ? ', null_padding = true, parallel = false' : ''})`,
      { path: join(dir, file) },
    )
  }
  await connection.run('CHECKPOINT')
  const seconds = (performance.now() - started) / 1000
  connection.closeSync()
  instance.closeSync()
  return seconds
}

/**
 * The vocabulary benchmark: a full-size ESCO-format import (the real skills_en.csv when the shared
 * data has it, else a synthetic 14,000 skills × 5 languages) beside DuckDB's raw read_csv of the
 * same files (goal: import under 10× the raw read), and display-name lookups of 1,000,000
 * (skill, language) pairs (goal: over 5 M lookups/s).
 */
export async function benchVocabulary(): Promise<BenchResult> {
  const scratch = scratchDir('vocabulary')
  const temp = scratch.dir
  try {
    const shared = resolve(projectRoot(), '..', 'shared', 'data', 'esco-1.2.0-en')
    const real = existsSync(join(shared, 'skills_en.csv'))
    const source = real ? shared : join(temp, 'esco')
    if (!real) writeSyntheticEsco(source)
    const files = readdirSync(source).filter((file) => file.endsWith('.csv'))

    const rawSeconds = await rawReadCsv(source, files, join(temp, 'raw.duckdb'))

    const dataDir = join(temp, 'data')
    await createTenant({
      dataDir,
      name: 'bench',
      region: 'eu',
      vendors: ['vendor_a'],
      languages: ['en_uk', 'en_us', 'de', 'fr', 'nl', 'es'],
      initialise: initialiseTenant,
    })
    const summary = await withTenant(dataDir, 'bench', (tenant) =>
      measure(async () => {
        const result = await importEsco(tenant, [source])
        await tenant.database.checkpoint()
        return result
      }),
    )

    const lookup = await withTenant(dataDir, 'bench', async (tenant) => {
      const loadStarted = performance.now()
      const names = await SkillNames.load(tenant.database, 'vendor_a')
      const loadSeconds = (performance.now() - loadStarted) / 1000
      const rows = await tenant.database.all<{ skill_id: string }>(
        `SELECT external_id AS skill_id FROM skills WHERE external_vendor = 'vendor_a' ORDER BY external_id`,
      )
      const ids = rows.map((row) => row.skill_id)
      const languages: VocabLanguage[] = ['en_uk', 'en_us', 'nl', 'de', 'fr', 'es', 'it']
      const random = new SeededRandom(7)
      const pairs = 1_000_000
      const skillOf: string[] = new Array(pairs)
      const languageOf: VocabLanguage[] = new Array(pairs)
      for (let index = 0; index < pairs; index++) {
        skillOf[index] = ids[random.int(ids.length)] as string
        languageOf[index] = languages[random.int(languages.length)] as VocabLanguage
      }
      // Warm up, then measure the best of three passes (the first pays for JIT compilation).
      let characters = 0
      let best = Number.POSITIVE_INFINITY
      for (let pass = 0; pass < 4; pass++) {
        const started = performance.now()
        for (let index = 0; index < pairs; index++) {
          characters += names.name(skillOf[index] as string, languageOf[index] as VocabLanguage)?.length ?? 0
        }
        const elapsed = (performance.now() - started) / 1000
        if (pass > 0) best = Math.min(best, elapsed)
      }
      return { loadSeconds, seconds: best, pairs, characters, skills: names.size }
    })

    const ratio = summary.seconds / rawSeconds
    const rate = lookup.pairs / lookup.seconds
    return {
      name: 'vocabulary',
      figures: {
        source: real ? 'ESCO (shared data)' : 'synthetic ESCO, 14,000 skills × 5 languages',
        files: files.length,
        skills_imported: summary.result.skills,
        languages: summary.result.languages.join(' '),
        import_seconds: round(summary.seconds),
        import_peak_rss_mib: summary.peakRssMiB,
        raw_read_csv_seconds: round(rawSeconds),
        events_appended: summary.result.events,
        names_load_seconds: round(lookup.loadSeconds),
        name_lookups: lookup.pairs,
        name_lookups_per_second: Math.round(rate),
      },
      ratios: {
        import_over_raw_read_csv: round(ratio),
        import_over_raw_goal_10x: round(ratio / 10),
        name_lookups_over_goal_5m_per_s: round(rate / 5_000_000),
      },
    }
  } finally {
    scratch.cleanup()
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000
