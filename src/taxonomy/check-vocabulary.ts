import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SkillType } from '../schemas/taxonomy.js'
import {
  REQUIRED_NAME_LANGUAGES,
  VocabularyDomainFile,
  type VocabularySkill,
} from '../schemas/vocabulary-file.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'

/** One thing wrong with a vocabulary: the file, where in it (a JSON path), and what. */
export interface VocabularyProblem {
  file: string
  path: string
  message: string
}

/** A vocabulary file that passed the schema. */
export interface VocabularyFile {
  path: string
  domain: VocabularyDomainFile
}

/** What a vocabulary holds: counts per level, per domain, per skill type and per language. */
export interface VocabularySummary {
  domains: number
  subdomains: number
  clusters: number
  skills: number
  skillsPerDomain: Record<string, number>
  skillsPerType: Partial<Record<SkillType, number>>
  namesPerLanguage: Partial<Record<VocabLanguage, number>>
  aliasesPerLanguage: Partial<Record<VocabLanguage, number>>
}

/**
 * Reads every `*.json` file of `dir` (in name order) and checks each against the vocabulary
 * schema. A file that is not JSON or does not match becomes one problem per zod issue, naming the
 * file and the issue's path; the files that match are returned for `checkVocabulary`.
 */
export async function loadVocabularyDir(
  dir: string,
): Promise<{ files: VocabularyFile[]; problems: VocabularyProblem[] }> {
  const files: VocabularyFile[] = []
  const problems: VocabularyProblem[] = []
  let names: string[]
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort()
  } catch (error) {
    return { files, problems: [{ file: dir, path: '', message: `cannot read the folder: ${reason(error)}` }] }
  }
  for (const name of names) {
    const path = join(dir, name)
    let json: unknown
    try {
      json = JSON.parse(await readFile(path, 'utf8'))
    } catch (error) {
      problems.push({ file: path, path: '', message: `is not a readable JSON file: ${reason(error)}` })
      continue
    }
    const parsed = VocabularyDomainFile.safeParse(json)
    if (parsed.success) {
      files.push({ path, domain: parsed.data })
      continue
    }
    for (const issue of parsed.error.issues) {
      problems.push({ file: path, path: formatPath(issue.path), message: issue.message })
    }
  }
  return { files, problems }
}

/**
 * Checks vocabulary files together: external_ids used twice (by any domain, subdomain, cluster
 * or skill, in any file), skills without a display name in a required language, domains,
 * subdomains and clusters with nothing under them, labels claimed by more than one skill without
 * a reason in `shared_aliases`, and `shared_aliases` keys that are none of the skill's labels.
 */
export function checkVocabulary(files: readonly VocabularyFile[]): VocabularyProblem[] {
  const problems: VocabularyProblem[] = []
  const ids = new Map<string, Place & { kind: string }>()
  const claims = new Map<string, Claim[]>()

  const useId = (id: string, kind: string, place: Place) => {
    const first = ids.get(id)
    if (first) {
      problems.push({
        ...place,
        message: `duplicate external_id '${id}' (${kind}): already used by the ${first.kind} at ${where(first)}`,
      })
    } else {
      ids.set(id, { ...place, kind })
    }
  }

  for (const { path: file, domain } of files) {
    useId(domain.external_id, 'domain', { file, path: '' })
    if (domain.subdomains.length === 0) {
      problems.push({ file, path: 'subdomains', message: `domain '${domain.external_id}' has no subdomains` })
    }
    for (const [s, subdomain] of domain.subdomains.entries()) {
      const subdomainPath = `subdomains[${s}]`
      useId(subdomain.external_id, 'subdomain', { file, path: subdomainPath })
      if (subdomain.skill_clusters.length === 0) {
        problems.push({
          file,
          path: `${subdomainPath}.skill_clusters`,
          message: `subdomain '${subdomain.external_id}' has no skill clusters`,
        })
      }
      for (const [c, cluster] of subdomain.skill_clusters.entries()) {
        const clusterPath = `${subdomainPath}.skill_clusters[${c}]`
        useId(cluster.external_id, 'skill cluster', { file, path: clusterPath })
        if (cluster.skills.length === 0) {
          problems.push({
            file,
            path: `${clusterPath}.skills`,
            message: `skill cluster '${cluster.external_id}' has no skills`,
          })
        }
        for (const [k, skill] of cluster.skills.entries()) {
          const place = { file, path: `${clusterPath}.skills[${k}]` }
          useId(skill.external_id, 'skill', place)
          problems.push(...checkNames(skill, place))
          problems.push(...checkSharedAliasKeys(skill, place))
          for (const label of labelsOf(skill)) {
            const key = `${labelGroup(label.language)}\u0000${normaliseLabel(label.text)}`
            const claim: Claim = { ...label, skill, place }
            const existing = claims.get(key)
            if (existing) existing.push(claim)
            else claims.set(key, [claim])
          }
        }
      }
    }
  }

  for (const claimList of claims.values()) {
    const problem = checkSharedLabel(claimList)
    if (problem) problems.push(problem)
  }
  return problems
}

/** Counts the domains, subdomains, clusters, skills, names and aliases of vocabulary files. */
export function summariseVocabulary(files: readonly VocabularyFile[]): VocabularySummary {
  const summary: VocabularySummary = {
    domains: 0,
    subdomains: 0,
    clusters: 0,
    skills: 0,
    skillsPerDomain: {},
    skillsPerType: {},
    namesPerLanguage: {},
    aliasesPerLanguage: {},
  }
  for (const { domain } of files) {
    summary.domains += 1
    summary.skillsPerDomain[domain.external_id] ??= 0
    for (const subdomain of domain.subdomains) {
      summary.subdomains += 1
      for (const cluster of subdomain.skill_clusters) {
        summary.clusters += 1
        for (const skill of cluster.skills) {
          summary.skills += 1
          add(summary.skillsPerDomain, domain.external_id, 1)
          add(summary.skillsPerType, skill.skill_type, 1)
          for (const [language] of byLanguage(skill.names)) add(summary.namesPerLanguage, language, 1)
          for (const [language, aliases] of byLanguage(skill.aliases ?? {})) {
            add(summary.aliasesPerLanguage, language, aliases.length)
          }
        }
      }
    }
  }
  return summary
}

/**
 * The form in which two labels count as the same: NFKD-decomposed without combining marks
 * (accents), lower case, whitespace collapsed and trimmed. `Néerlandais` and ` neerlandais` match.
 */
export function normaliseLabel(label: string): string {
  return label.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim()
}

interface Place {
  file: string
  path: string
}

interface Label {
  language: VocabLanguage
  kind: 'name' | 'alias'
  text: string
}

interface Claim extends Label {
  skill: VocabularySkill
  place: Place
}

function checkNames(skill: VocabularySkill, place: Place): VocabularyProblem[] {
  const missing = REQUIRED_NAME_LANGUAGES.filter((language) => !skill.names[language]?.trim())
  return missing.map((language) => ({
    file: place.file,
    path: `${place.path}.names`,
    message: `skill '${skill.external_id}' has no display name in ${language} (required: ${REQUIRED_NAME_LANGUAGES.join(', ')})`,
  }))
}

/** A reason for sharing a label that the skill does not carry is a typo or a leftover. */
function checkSharedAliasKeys(skill: VocabularySkill, place: Place): VocabularyProblem[] {
  const own = new Set(labelsOf(skill).map((label) => normaliseLabel(label.text)))
  return Object.keys(skill.shared_aliases ?? {})
    .filter((alias) => !own.has(normaliseLabel(alias)))
    .map((alias) => ({
      file: place.file,
      path: `${place.path}.shared_aliases`,
      message: `skill '${skill.external_id}' gives a reason for sharing '${alias}', which is none of its names or aliases`,
    }))
}

/**
 * Several skills may claim one label only when each of them says why in `shared_aliases`. Two
 * skills with the same display name are held to the same rule: either way a text that says the
 * label cannot tell which skill it means.
 */
function checkSharedLabel(claimList: readonly Claim[]): VocabularyProblem | undefined {
  const bySkill = new Map<VocabularySkill, Claim>()
  for (const claim of claimList) {
    const current = bySkill.get(claim.skill)
    // a skill that claims a label both as a name and as an alias is reported by its alias
    if (!current || (current.kind === 'name' && claim.kind === 'alias')) bySkill.set(claim.skill, claim)
  }
  if (bySkill.size < 2) return undefined
  const claimants = [...bySkill.values()]
  const label = claimants.find((claim) => claim.kind === 'alias') ?? (claimants[0] as Claim)
  const unexplained = claimants.filter((claim) => !givesReason(claim.skill, claim.text))
  if (unexplained.length === 0) return undefined
  const what = label.kind === 'alias' ? 'alias' : 'display name'
  const list = claimants
    .map((claim) => `${claim.skill.external_id} (${claim.kind} in ${claim.language}, ${where(claim.place)})`)
    .join(', ')
  const missing = unexplained.map((claim) => claim.skill.external_id).join(', ')
  return {
    ...label.place,
    message:
      `${what} '${label.text}' (${labelGroup(label.language)}) is claimed by ${claimants.length} skills: ${list}; ` +
      `without a reason in shared_aliases: ${missing}`,
  }
}

function givesReason(skill: VocabularySkill, label: string): boolean {
  const wanted = normaliseLabel(label)
  return Object.keys(skill.shared_aliases ?? {}).some((alias) => normaliseLabel(alias) === wanted)
}

function labelsOf(skill: VocabularySkill): Label[] {
  const labels: Label[] = []
  for (const [language, text] of byLanguage(skill.names)) labels.push({ language, kind: 'name', text })
  for (const [language, aliases] of byLanguage(skill.aliases ?? {})) {
    for (const text of aliases) labels.push({ language, kind: 'alias', text })
  }
  return labels
}

/** en_uk and en_us label the same English text (en_us falls back to en_uk), so they are compared together. */
function labelGroup(language: VocabLanguage): string {
  return language === 'en_uk' || language === 'en_us' ? 'en' : language
}

function formatPath(segments: readonly PropertyKey[]): string {
  return segments
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`
      const text = String(segment)
      return index === 0 ? text : `.${text}`
    })
    .join('')
}

const byLanguage = <T>(record: Partial<Record<VocabLanguage, T>>) =>
  Object.entries(record) as [VocabLanguage, T][]

const add = <K extends string>(counts: Partial<Record<K, number>>, key: K, by: number) => {
  counts[key] = (counts[key] ?? 0) + by
}

const where = (place: Place) => (place.path ? `${place.file}:${place.path}` : place.file)

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))
