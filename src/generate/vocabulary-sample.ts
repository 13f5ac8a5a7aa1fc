import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { VocabularyDomainFile } from '../schemas/vocabulary-file.js'
import { fixturesDir } from '../util/project-paths.js'

export interface SampleSkill {
  id: string
  domain: string
  cluster: string
  /** Words a writer would use for the skill, per text language (name first, then aliases). */
  words: Record<'en' | 'nl' | 'fr' | 'de', string[]>
}

/** The skills of the embedded default vocabulary, as the generator writes about them. */
export function loadSampleSkills(dir = fixturesDir('vocabulary', 'default')): SampleSkill[] {
  const skills: SampleSkill[] = []
  for (const name of readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()) {
    const domain = JSON.parse(readFileSync(join(dir, name), 'utf8')) as VocabularyDomainFile
    for (const subdomain of domain.subdomains) {
      for (const cluster of subdomain.skill_clusters) {
        for (const skill of cluster.skills) {
          const words = (language: 'en_uk' | 'nl' | 'fr' | 'de') => [
            ...(skill.names[language] ? [skill.names[language] as string] : []),
            ...(skill.aliases?.[language] ?? []),
          ]
          const en = words('en_uk')
          skills.push({
            id: skill.external_id,
            domain: domain.external_id,
            cluster: cluster.external_id,
            words: {
              en,
              nl: orElse(words('nl'), en),
              fr: orElse(words('fr'), en),
              de: orElse(words('de'), en),
            },
          })
        }
      }
    }
  }
  if (skills.length === 0) throw new Error(`no skills found in ${dir}`)
  return skills
}

const orElse = (list: string[], fallback: string[]) => (list.length ? list : fallback)
