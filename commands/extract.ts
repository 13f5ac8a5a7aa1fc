import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { SkillhouseCommand } from '../src/cli/base-command.js'
import { errors } from '../src/errors/skillhouse-error.js'
import { defaultExtractor, extractorFor } from '../src/extraction/extractor-cache.js'
import type { ExtractedSkill, SkillExtractor } from '../src/extraction/skill-extractor.js'
import { VENDORS } from '../src/schemas/vendors.js'
import { toVocabLanguage } from '../src/schemas/vocabulary-languages.js'
import { withTenant } from '../src/tenants/tenant-service.js'
import { Args, Flags } from '../src/vendor/oclif.js'

export default class Extract extends SkillhouseCommand {
  static override summary = 'Ranked skills found in free text'
  static override description =
    "Uses the embedded default vocabulary, or with --tenant that tenant's vocabulary (its custom skills and activated vendors). With --file, one result per input line; with --json, one JSON array per input line (NDJSON) of {skill_id, skill_name, score, span}."
  static override examples = [
    '<%= config.bin %> extract "Built ETL pipelines in Python and SQL on Azure"',
    '<%= config.bin %> extract --file fixtures/examples/cv-lines.txt --language nl --top 5 --json',
  ]
  static override args = { text: Args.string({ description: 'text to read (or use --file)' }) }
  static override flags = {
    file: Flags.file({ description: 'read texts from a file, one per line', exists: true }),
    language: Flags.string({
      description: 'language of the text',
      options: ['auto', 'en', 'nl', 'fr', 'de'],
      default: 'auto',
    }),
    top: Flags.integer({ description: 'keep the best N skills', min: 1, max: 1000 }),
    'external-vendor': Flags.string({
      description: 'vocabulary vendor',
      options: [...VENDORS],
      default: 'vendor_default',
    }),
    'vocab-language': Flags.string({
      description: 'language of skill names (en_uk, en-US, de, fr, nl, …)',
      default: 'en_uk',
    }),
    tenant: Flags.string({ description: 'tenant whose vocabulary to use' }),
  }
  static override enableJsonFlag = true

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Extract)
    if (!args.text && !flags.file) throw errors.badRequest('give a TEXT argument or --file F')
    const vocabLanguage = toVocabLanguage(flags['vocab-language'])
    if (!vocabLanguage)
      throw errors.unprocessable(`--vocab-language ${flags['vocab-language']} is not a vocabulary language`)
    const options = {
      language: flags.language as 'auto',
      vocabLanguage,
      ...(flags.top ? { top: flags.top } : {}),
    }
    const dataDir = this.dataDir(flags)
    // Without --tenant the embedded vocabulary, however many tenants the data directory holds.
    const useTenant = flags.tenant !== undefined
    const work = async (extractor: SkillExtractor) => {
      if (!flags.file) {
        const result = extractor.extract(args.text as string, options)
        if (!this.jsonEnabled()) this.print(result.skills)
        return result.skills.map(plain)
      }
      // One result per input line, streamed: a file of any size in constant memory.
      const lines = createInterface({
        input: createReadStream(flags.file),
        crlfDelay: Number.POSITIVE_INFINITY,
      })
      for await (const line of lines) {
        const skills = extractor.extract(line, options).skills
        if (this.jsonEnabled()) process.stdout.write(`${JSON.stringify(skills.map(plain))}\n`)
        else this.log(skills.map((skill) => `${skill.skill_name} (${skill.score})`).join('; '))
      }
      return undefined
    }
    // With --file the lines were written as they came and `work` returns nothing, so oclif prints
    // no result after them.
    return useTenant
      ? await withTenant(dataDir, flags.tenant, async (tenant) =>
          work(await extractorFor(tenant.database, flags['external-vendor'])),
        )
      : await work(defaultExtractor())
  }

  private print(skills: ExtractedSkill[]) {
    if (skills.length === 0) this.log('(no skills found)')
    for (const skill of skills) {
      this.log(
        `${skill.score.toFixed(4)}  ${skill.skill_id.padEnd(40)} ${skill.skill_name}  [${skill.span.text}]`,
      )
    }
  }
}

const plain = (skill: ExtractedSkill) => ({
  skill_id: skill.skill_id,
  skill_name: skill.skill_name,
  score: skill.score,
  span: skill.span,
})
