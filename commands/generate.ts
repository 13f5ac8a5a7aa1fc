import { SkillhouseCommand } from '../src/cli/base-command.js'
import { type GenerateResult, generateTenant } from '../src/generate/generate-tenant.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Generate extends SkillhouseCommand {
  static override summary =
    'Write a deterministic synthetic tenant (all entities and skill events) at any scale'
  static override description =
    'The same options and seed give the same bytes. Texts are made of the default vocabulary, so extraction finds skills in them. Ingest the folder with `skillhouse ingest DIR`.'
  static override examples = [
    '<%= config.bin %> generate --employees 500 --seed 7 --out generated-500',
    '<%= config.bin %> generate --employees 2000 --events 20000 --jobs 200 --vacancies 400 --events-format csv --seed 1 --out generated-2k',
  ]
  static override flags = {
    employees: Flags.integer({ description: 'number of employees', default: 300, min: 1, max: 10_000_000 }),
    events: Flags.integer({ description: 'number of skill events (default 20 per employee)', min: 0 }),
    jobs: Flags.integer({ description: 'number of jobs (default employees / 10)', min: 1 }),
    vacancies: Flags.integer({ description: 'number of vacancies (default employees / 5)', min: 1 }),
    courses: Flags.integer({ description: 'number of courses', min: 1 }),
    seed: Flags.integer({ description: 'seed of the random generator', default: 1 }),
    'events-format': Flags.string({
      description: 'format of the skill events file',
      options: ['ndjson', 'csv'],
      default: 'ndjson',
    }),
    out: Flags.string({ description: 'folder to write the files to', required: true }),
  }

  async run(): Promise<GenerateResult> {
    const { flags } = await this.parse(Generate)
    const spinner = (await this.spinner('generating'))?.start()
    const result = await generateTenant({
      out: flags.out,
      seed: flags.seed,
      employees: flags.employees,
      events: flags.events,
      jobs: flags.jobs,
      vacancies: flags.vacancies,
      courses: flags.courses,
      eventsFormat: flags['events-format'] as 'ndjson' | 'csv',
      onProgress: (written, total) => {
        if (spinner)
          spinner.text = `skill events ${written.toLocaleString('en')} / ${total.toLocaleString('en')}`
      },
    })
    spinner?.stop()
    for (const file of result.files) this.log(`${String(file.rows).padStart(10)}  ${file.file}`)
    this.log(`written to ${result.out} in ${result.seconds.toFixed(1)} s (seed ${result.seed})`)
    return result
  }
}
