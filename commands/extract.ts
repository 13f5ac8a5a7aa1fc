import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { SkillhouseCommand } from '../src/cli/base-command.js'
import { errors } from '../src/errors/skillhouse-error.js'
import { defaultExtractor } from '../src/extraction/extractor-cache.js'
import type { ExtractOptions } from '../src/extraction/skill-extractor.js'
import {
  extractWithTenantVocabulary,
  type FoundSkill,
  foundSkill,
} from '../src/operations/extraction-operations.js'
import type { OperationRunner } from '../src/operations/run-operation.js'
import { VENDORS } from '../src/schemas/vendors.js'
import { toVocabLanguage } from '../src/schemas/vocabulary-languages.js'
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
    const options: ExtractOptions = {
      language: flags.language as 'auto',
      vocabLanguage,
      ...(flags.top ? { top: flags.top } : {}),
    }
    // Without --tenant the embedded vocabulary, however many tenants the data directory holds;
    // with it the tenant's, by whichever process holds the tenant.
    if (flags.tenant === undefined)
      return this.extractAll(args.text, flags.file, (texts) => {
        const extractor = defaultExtractor()
        return Promise.resolve(texts.map((text) => extractor.extract(text, options).skills.map(foundSkill)))
      })
    return this.withTenantOperations(flags, {}, (run: OperationRunner) =>
      this.extractAll(args.text, flags.file, (texts) =>
        run(extractWithTenantVocabulary, { texts, external_vendor: flags['external-vendor'], options }),
      ),
    )
  }

  /**
   * The skills of TEXT, or of each line of `file` (streamed in batches: a file of any size in
   * constant memory, its lines written as they come, so that oclif prints no result after them).
   */
  private async extractAll(
    text: string | undefined,
    file: string | undefined,
    extract: (texts: string[]) => Promise<FoundSkill[][]>,
  ): Promise<FoundSkill[] | undefined> {
    if (!file) {
      const [skills = []] = await extract([text as string])
      if (!this.jsonEnabled()) this.print(skills)
      return skills
    }
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })
    let batch: string[] = []
    const flush = async () => {
      for (const skills of await extract(batch)) {
        if (this.jsonEnabled()) process.stdout.write(`${JSON.stringify(skills)}\n`)
        else this.log(skills.map((skill) => `${skill.skill_name} (${skill.score})`).join('; '))
      }
      batch = []
    }
    for await (const line of lines) {
      batch.push(line)
      if (batch.length === LINES_PER_BATCH) await flush()
    }
    if (batch.length > 0) await flush()
    return undefined
  }

  private print(skills: FoundSkill[]) {
    if (skills.length === 0) this.log('(no skills found)')
    for (const skill of skills) {
      this.log(
        `${skill.score.toFixed(4)}  ${skill.skill_id.padEnd(40)} ${skill.skill_name}  [${skill.span.text}]`,
      )
    }
  }
}

/** Lines of a --file extracted at a time (and handed to a server in one request). */
const LINES_PER_BATCH = 500
