import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { VocabularyDomainFile, VocabularySkill } from '../../src/schemas/index.js'
import {
  checkVocabulary,
  loadVocabularyDir,
  normaliseLabel,
  summariseVocabulary,
  type VocabularyFile,
} from '../../src/taxonomy/check-vocabulary.js'
import { fixturesDir } from '../../src/util/project-paths.js'

const DEFAULT_VOCABULARY = fixturesDir('vocabulary', 'default')

function skill(id: string, overrides: Partial<VocabularySkill> = {}): VocabularySkill {
  return {
    external_id: id,
    skill_type: 'hard_skill',
    names: { en_uk: `${id} en`, de: `${id} de`, fr: `${id} fr`, nl: `${id} nl` },
    ...overrides,
  }
}

function vocabularyFile(name: string, skills: VocabularySkill[]): VocabularyFile {
  const domain: VocabularyDomainFile = {
    external_id: `dom-${name}`,
    domain_name: name,
    subdomains: [
      {
        external_id: `sub-${name}`,
        subdomain_name: name,
        skill_clusters: [{ external_id: `clu-${name}`, skill_cluster_name: name, skills }],
      },
    ],
  }
  return { path: `${name}.json`, domain }
}

describe('the embedded default vocabulary', () => {
  it('loads and checks without problems and holds at least 1,200 skills across at least 14 domains', async () => {
    const { files, problems } = await loadVocabularyDir(DEFAULT_VOCABULARY)
    expect([...problems, ...checkVocabulary(files)]).toEqual([])
    const summary = summariseVocabulary(files)
    expect(summary.skills).toBeGreaterThanOrEqual(1200)
    expect(summary.domains).toBeGreaterThanOrEqual(14)
  })
})

describe('checkVocabulary', () => {
  it('passes a vocabulary whose ids, names and aliases are all distinct', () => {
    const files = [
      vocabularyFile('a', [skill('skl-one', { aliases: { nl: ['een'] } }), skill('skl-two')]),
      vocabularyFile('b', [skill('skl-three')]),
    ]
    expect(checkVocabulary(files)).toEqual([])
  })

  it('reports a skill external_id used in two files and names both places', () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [skill('skl-x')]),
      vocabularyFile('b', [skill('skl-x')]),
    ])
    const duplicate = problems.filter((problem) => problem.message.startsWith('duplicate external_id'))
    expect(duplicate).toEqual([
      {
        file: 'b.json',
        path: 'subdomains[0].skill_clusters[0].skills[0]',
        message:
          "duplicate external_id 'skl-x' (skill): already used by the skill at a.json:subdomains[0].skill_clusters[0].skills[0]",
      },
    ])
  })

  it('reports an external_id shared by a cluster and a subdomain', () => {
    const file = vocabularyFile('a', [skill('skl-one')])
    const subdomain = file.domain.subdomains[0]!
    subdomain.skill_clusters[0]!.external_id = subdomain.external_id
    expect(checkVocabulary([file])).toEqual([
      {
        file: 'a.json',
        path: 'subdomains[0].skill_clusters[0]',
        message:
          "duplicate external_id 'sub-a' (skill cluster): already used by the subdomain at a.json:subdomains[0]",
      },
    ])
  })

  it('reports a skill without a display name in a required language', () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [skill('skl-x', { names: { en_uk: 'X', de: 'X', nl: 'X' } })]),
    ])
    expect(problems).toEqual([
      {
        file: 'a.json',
        path: 'subdomains[0].skill_clusters[0].skills[0].names',
        message: "skill 'skl-x' has no display name in fr (required: en_uk, de, fr, nl)",
      },
    ])
  })

  it('does not require an en_us name, because en_us falls back to en_uk', () => {
    expect(checkVocabulary([vocabularyFile('a', [skill('skl-x')])])).toEqual([])
  })

  it('reports a skill cluster without skills', () => {
    const problems = checkVocabulary([vocabularyFile('a', [])])
    expect(problems).toEqual([
      {
        file: 'a.json',
        path: 'subdomains[0].skill_clusters[0].skills',
        message: "skill cluster 'clu-a' has no skills",
      },
    ])
  })

  it('reports an alias claimed by two skills when neither gives a reason', () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [skill('skl-gdpr', { aliases: { nl: ['AVG'] } })]),
      vocabularyFile('b', [skill('skl-privacy', { aliases: { nl: ['avg'] } })]),
    ])
    expect(problems).toHaveLength(1)
    expect(problems[0]?.message).toBe(
      "alias 'AVG' (nl) is claimed by 2 skills: " +
        'skl-gdpr (alias in nl, a.json:subdomains[0].skill_clusters[0].skills[0]), ' +
        'skl-privacy (alias in nl, b.json:subdomains[0].skill_clusters[0].skills[0]); ' +
        'without a reason in shared_aliases: skl-gdpr, skl-privacy',
    )
  })

  it('reports a shared alias when only one of the claimants gives a reason', () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [
        skill('skl-mandarin', {
          aliases: { en_uk: ['Chinese'] },
          shared_aliases: { Chinese: 'may mean Mandarin or Cantonese' },
        }),
        skill('skl-cantonese', { aliases: { en_uk: ['Chinese'] } }),
      ]),
    ])
    expect(problems).toHaveLength(1)
    expect(problems[0]?.message).toMatch(/without a reason in shared_aliases: skl-cantonese$/)
  })

  it('accepts an alias shared by skills that all give a reason for it', () => {
    const reason = { Chinese: 'may mean Mandarin or Cantonese' }
    const problems = checkVocabulary([
      vocabularyFile('a', [
        skill('skl-mandarin', { aliases: { en_uk: ['Chinese'] }, shared_aliases: reason }),
        skill('skl-cantonese', { aliases: { en_uk: ['chinese'] }, shared_aliases: reason }),
      ]),
    ])
    expect(problems).toEqual([])
  })

  it("reports an alias that equals another skill's display name in the same language after accent folding", () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [
        skill('skl-dutch', {
          names: { en_uk: 'Dutch', de: 'Niederländisch', fr: 'Néerlandais', nl: 'Nederlands' },
        }),
        skill('skl-flemish-sign-language', { aliases: { fr: ['  NEERLANDAIS '] } }),
      ]),
    ])
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatchObject({ file: 'a.json', path: 'subdomains[0].skill_clusters[0].skills[1]' })
    expect(problems[0]?.message).toMatch(
      /^alias ' {2}NEERLANDAIS ' \(fr\) is claimed by 2 skills: skl-dutch \(name in fr/,
    )
  })

  it('does not compare labels of different languages', () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [
        skill('skl-dutch', {
          names: { en_uk: 'Dutch', de: 'Niederländisch', fr: 'Néerlandais', nl: 'Nederlands' },
        }),
        skill('skl-other', { aliases: { de: ['Nederlands'] } }),
      ]),
    ])
    expect(problems).toEqual([])
  })

  it('compares en_uk and en_us labels together', () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [
        skill('skl-programme', {
          names: { en_uk: 'Programme', en_us: 'Program', de: 'P', fr: 'P', nl: 'P' },
        }),
        skill('skl-other', { aliases: { en_uk: ['program'] } }),
      ]),
    ])
    expect(problems).toHaveLength(1)
    expect(problems[0]?.message).toMatch(/^alias 'program' \(en\)/)
  })

  it('reports two skills with the same display name in one language', () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [skill('skl-one', { names: { en_uk: 'Negotiation', de: 'a', fr: 'a', nl: 'a' } })]),
      vocabularyFile('b', [skill('skl-two', { names: { en_uk: 'negotiation', de: 'b', fr: 'b', nl: 'b' } })]),
    ])
    expect(problems).toHaveLength(1)
    expect(problems[0]?.message).toMatch(/^display name 'Negotiation' \(en\) is claimed by 2 skills/)
  })

  it('reports a reason in shared_aliases for a label the skill does not carry', () => {
    const problems = checkVocabulary([
      vocabularyFile('a', [
        skill('skl-x', { shared_aliases: { Chinees: 'may mean Mandarin or Cantonese' } }),
      ]),
    ])
    expect(problems).toEqual([
      {
        file: 'a.json',
        path: 'subdomains[0].skill_clusters[0].skills[0].shared_aliases',
        message: "skill 'skl-x' gives a reason for sharing 'Chinees', which is none of its names or aliases",
      },
    ])
  })
})

describe('loadVocabularyDir', () => {
  it('reads only the JSON files and reports a schema failure with the file and the issue path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillhouse-vocabulary-'))
    try {
      await writeFile(
        join(dir, 'good.json'),
        JSON.stringify(vocabularyFile('good', [skill('skl-one')]).domain),
      )
      const bad = vocabularyFile('bad', [skill('skl-two')]).domain as unknown as {
        subdomains: { skill_clusters: { skills: { skill_type: string }[] }[] }[]
      }
      bad.subdomains[0]!.skill_clusters[0]!.skills[0]!.skill_type = 'talent'
      await writeFile(join(dir, 'bad.json'), JSON.stringify(bad))
      await writeFile(join(dir, 'broken.json'), '{ "external_id": ')
      await writeFile(join(dir, 'notes.txt'), 'not a vocabulary')

      const { files, problems } = await loadVocabularyDir(dir)

      expect(files.map((file) => file.domain.external_id)).toEqual(['dom-good'])
      expect(problems).toHaveLength(2)
      expect(problems[0]).toMatchObject({
        file: join(dir, 'bad.json'),
        path: 'subdomains[0].skill_clusters[0].skills[0].skill_type',
      })
      expect(problems[1]).toMatchObject({ file: join(dir, 'broken.json'), path: '' })
      expect(problems[1]?.message).toMatch(/^is not a readable JSON file/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('reports a folder that cannot be read instead of throwing', async () => {
    const { files, problems } = await loadVocabularyDir(join(tmpdir(), 'skillhouse-no-such-folder'))
    expect(files).toEqual([])
    expect(problems[0]?.message).toMatch(/^cannot read the folder/)
  })
})

describe('summariseVocabulary', () => {
  it('counts levels, skills per domain and type, and names and aliases per language', () => {
    const summary = summariseVocabulary([
      vocabularyFile('a', [
        skill('skl-one', { aliases: { nl: ['een', 'één'], de: ['eins'] } }),
        skill('skl-two', { skill_type: 'language' }),
      ]),
      vocabularyFile('b', [
        skill('skl-three', { names: { en_uk: 'x', en_us: 'y', de: 'x', fr: 'x', nl: 'x' } }),
      ]),
    ])
    expect(summary).toEqual({
      domains: 2,
      subdomains: 2,
      clusters: 2,
      skills: 3,
      skillsPerDomain: { 'dom-a': 2, 'dom-b': 1 },
      skillsPerType: { hard_skill: 2, language: 1 },
      namesPerLanguage: { en_uk: 3, en_us: 1, de: 3, fr: 3, nl: 3 },
      aliasesPerLanguage: { nl: 2, de: 1 },
    })
  })
})

describe('normaliseLabel', () => {
  it('folds case, accents, compatibility forms and whitespace', () => {
    expect(normaliseLabel('  Néerlandais\u00a0 ')).toBe('neerlandais')
    expect(normaliseLabel('Oekraïens')).toBe(normaliseLabel('oekraiens'))
    expect(normaliseLabel('ﬁnance  team')).toBe('finance team')
  })
})
