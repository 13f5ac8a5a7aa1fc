import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  getJobChangePreview,
  parseJobChangePreviewRequest,
  previewJobChange,
} from '../../src/analytics/job-change-preview.js'
import {
  firstSentences,
  resolveSections,
  understandInstructions,
} from '../../src/analytics/job-description.js'
import { JobChangePreviewResponse } from '../../src/schemas/index.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { createAnalyticsTenant } from './analytics-tenant.js'

const request = (context: Record<string, unknown> = {}, jobId = 'job-dev') => ({
  change_type: 'add_job_description',
  job_id: jobId,
  context,
})

/**
 * Worked out by hand from the fixture: job-dev's skills by importance are Java (critical,
 * governed, level 4), Python (0.8, level 3), Git (tool, 0.7), Dutch (language, 0.6, level 3),
 * Teamwork (soft, 0.5). Work skills: Java, Python, Git. Requirements (critical, governed or level
 * ≥ 3): Java, Python, Dutch. The references hold SQL (both), Data Analysis and Project Management
 * (one each, mean score 0.8, so by id), which job-dev lacks; then job-dev's other skills.
 */
const ENGLISH = `# Software Developer

## Summary

As Software Developer in our Engineering team, you bring Java, Python and Git to your daily work. You design, build and test the services behind our products.

## Responsibilities

- Apply Java in your day-to-day work
- Take ownership of Python within the team
- Work with Git every day

## Requirements

- Java (advanced, essential)
- Python (intermediate)
- Dutch (intermediate)

## Nice to have

- SQL
- Data Analysis
- Project Management
- Git
- Teamwork

## About the team

You join the Engineering job family. The engineering family builds and runs the software of the company. You work alongside colleagues in roles such as Data Engineer and Platform Engineer. The team values Teamwork.
`

describe('job change preview', () => {
  const temp = tempDir()
  let tenant: OpenTenant

  beforeAll(async () => {
    tenant = await createAnalyticsTenant(join(temp.dir, 'data'))
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  const generate = async (body: unknown) => {
    const response = await previewJobChange(tenant, body)
    expect(JobChangePreviewResponse.parse(response)).toEqual(response)
    return getJobChangePreview(tenant, response.change_id)
  }

  it("writes a description from the job's profile, its family and the reference jobs", async () => {
    const preview = await generate(request({ reference_job_ids: ['job-ref1', 'job-ref2'] }))
    expect(preview.job_description).toBe(ENGLISH)
    expect(preview).toMatchObject({
      change_type: 'add_job_description',
      job_id: 'job-dev',
      status: 'previewed',
      language: 'en',
      title: 'Software Developer',
      context: {
        instructions: null,
        reference_job_ids: ['job-ref1', 'job-ref2'],
        sections_to_include: [
          'summary',
          'responsibilities',
          'requirements',
          'nice_to_have',
          'about_the_team',
        ],
        use_internal_job_data: true,
      },
      instructions_applied: [],
    })
    expect(preview.change_id).toMatch(/^jcp-[0-9a-f]{32}$/)
    expect(Date.parse(preview.created_at)).not.toBeNaN()
  })

  it('gives the same text and change_id for the same input, and another id for another input', async () => {
    const body = request({ reference_job_ids: ['job-ref1', 'job-ref2'], instructions: 'Keep it short.' })
    const first = await previewJobChange(tenant, body)
    const second = await previewJobChange(tenant, structuredClone(body))
    expect(second).toEqual(first)
    const [a, b] = [
      await getJobChangePreview(tenant, first.change_id),
      await getJobChangePreview(tenant, second.change_id),
    ]
    expect(b.job_description).toBe(a.job_description)
    expect(b.created_at).toBe(a.created_at)
    const other = await previewJobChange(tenant, request({ reference_job_ids: ['job-ref1'] }))
    expect(other.change_id).not.toBe(first.change_id)
    const stored = await tenant.database.one<{ n: number }>(
      'SELECT count(*) AS n FROM job_change_previews WHERE change_id = $1',
      [first.change_id],
    )
    expect(stored?.n).toBe(1)
  })

  it('includes only the requested sections, in the requested order, whatever their spelling', async () => {
    const preview = await generate(
      request({ sections_to_include: ['Requirements', 'nice-to-have', 'summary', 'requirements'] }),
    )
    expect(preview.sections.map((section) => section.section)).toEqual([
      'requirements',
      'nice_to_have',
      'summary',
    ])
    expect(preview.job_description.match(/^## .*/gm)).toEqual([
      '## Requirements',
      '## Nice to have',
      '## Summary',
    ])
    expect(preview.context.sections_to_include).toEqual(['requirements', 'nice_to_have', 'summary'])
  })

  it.each([
    ['Write it in Dutch please', 'nl', '## Samenvatting', 'In team werken'],
    ['in het Nederlands', 'nl', '## Vereisten', 'Nederlands (gemiddeld)'],
    ['Rédigez-la en français', 'fr', '## Profil recherché', 'Travail en équipe'],
    ['Bitte auf Deutsch', 'de', '## Anforderungen', 'Teamfähigkeit'],
    ['language: de', 'de', '## Aufgaben', 'Java (sehr gute Kenntnisse, unerlässlich)'],
  ])(
    'writes in the language the instructions ask for: %s',
    async (instructions, language, heading, phrase) => {
      const preview = await generate(request({ instructions, reference_job_ids: ['job-ref1'] }))
      expect(preview.language).toBe(language)
      expect(preview.job_description).toContain(heading)
      expect(preview.job_description).toContain(phrase)
      expect(preview.instructions_applied[0]).toMatch(new RegExp(`^language: ${language} \\(from "`))
    },
  )

  it('quotes stored descriptions only in the output language', async () => {
    const dutch = await generate(request({ instructions: 'in Dutch', reference_job_ids: ['job-ref1'] }))
    // The job's description is English: a Dutch text does not quote it.
    expect(dutch.job_description).not.toContain('You design')
    expect(dutch.sections[0]?.paragraphs).toEqual([
      'Als Software Developer in ons team Engineering zet je dagelijks Java, Python en Git in.',
    ])
  })

  it("writes in the language of the job's own description when the instructions name none", async () => {
    const preview = await generate(request({}, 'job-nl'))
    expect(preview.language).toBe('nl')
    expect(preview.sections[0]?.paragraphs).toEqual([
      'Als Magazijnmedewerker zet je dagelijks Heftruck rijden in. Je ontvangt en controleert goederen in het magazijn.',
    ])
  })

  it('reads "fluent in French" as a requirement, not as the output language', async () => {
    const preview = await generate(request({ instructions: 'Candidates must be fluent in French.' }))
    expect(preview.language).toBe('en')
    expect(preview.instructions_applied).toEqual([])
  })

  it('limits every section to three bullets and quotes nothing when asked for a short text', async () => {
    const preview = await generate(
      request({ instructions: 'Short and concise, please.', reference_job_ids: ['job-ref1', 'job-ref2'] }),
    )
    expect(preview.instructions_applied).toEqual(['length: short (from "Short")'])
    for (const section of preview.sections) expect(section.bullets.length).toBeLessThanOrEqual(3)
    expect(preview.sections.find((section) => section.section === 'nice_to_have')?.bullets).toEqual([
      'SQL',
      'Data Analysis',
      'Project Management',
    ])
    expect(preview.job_description).not.toContain('You design')
  })

  it('uses no stored description without internal job data', async () => {
    const preview = await generate(request({ use_internal_job_data: false }, 'job-nl'))
    expect(preview.language).toBe('en')
    expect(preview.job_description).not.toContain('magazijn')
    expect(preview.sections[0]?.paragraphs).toEqual([
      'As Magazijnmedewerker, you bring Forklift Operation to your daily work.',
    ])
  })

  it('rejects an unknown job and unknown reference jobs with 404 naming each', async () => {
    await expect(previewJobChange(tenant, request({}, 'job-ghost'))).rejects.toMatchObject({
      status: 404,
      descriptions: ["job 'job-ghost' does not exist; create it first (POST /job_architecture/jobs)"],
    })
    await expect(
      previewJobChange(tenant, request({ reference_job_ids: ['job-ref1', 'r-x', 'r-y'] })),
    ).rejects.toMatchObject({
      status: 404,
      descriptions: [
        "reference job 'r-x' does not exist; create it first (POST /job_architecture/jobs)",
        "reference job 'r-y' does not exist; create it first (POST /job_architecture/jobs)",
      ],
    })
  })

  it('rejects an unknown section with 422 listing the valid ones', async () => {
    const error = await previewJobChange(
      tenant,
      request({ sections_to_include: ['summary', 'benefits'] }),
    ).catch((e) => e)
    expect(error).toMatchObject({ status: 422 })
    expect(error.descriptions).toEqual([
      "context.sections_to_include: 'benefits' is not a section; valid: summary, responsibilities, requirements, nice_to_have, about_the_team",
    ])
  })

  it.each([
    ['a body that is not an object', 'add a job description'],
    ['a missing context', { change_type: 'add_job_description', job_id: 'job-dev' }],
    ['a field not in 2.6', { ...request(), priority: 'high' }],
    ['a context field not in 2.6', request({ tone: 'friendly' })],
    ['a mistyped field', request({ reference_job_ids: 'job-ref1' })],
  ])('rejects %s with 400', async (_, body) => {
    await expect(previewJobChange(tenant, body)).rejects.toMatchObject({ status: 400 })
  })

  it.each([
    ['a change_type other than add_job_description', { ...request(), change_type: 'remove_job' }],
    ['a job_id that is no ExternalId', request({}, 'job dev')],
    ['a reference id that is no ExternalId', request({ reference_job_ids: ['job/ref'] })],
  ])('rejects %s with 422', async (_, body) => {
    await expect(previewJobChange(tenant, body)).rejects.toMatchObject({ status: 422 })
  })

  it('answers 404 for a change_id no preview has', async () => {
    await expect(getJobChangePreview(tenant, 'jcp-unknown')).rejects.toMatchObject({ status: 404 })
  })
})

describe('instructions, sections and sentences on plain data', () => {
  it('takes the first language request and reports what it read', () => {
    expect(understandInstructions('Schrijf dit in het Nederlands, not in English')).toEqual({
      language: 'nl',
      applied: ['language: nl (from "in het Nederlands")'],
    })
    expect(understandInstructions('Ausführlich, auf Deutsch')).toEqual({
      language: 'de',
      length: 'long',
      applied: ['language: de (from "auf Deutsch")', 'length: long (from "Ausführlich")'],
    })
    expect(understandInstructions('Mention the salary')).toEqual({ applied: [] })
  })

  it('reads section names in any case with spaces or hyphens and defaults to all sections', () => {
    expect(resolveSections(['About the team', 'SUMMARY'])).toEqual(['about_the_team', 'summary'])
    expect(resolveSections(undefined)).toEqual(resolveSections([]))
  })

  it('cuts the first sentences of the first paragraph', () => {
    expect(firstSentences('One. Two three!  Four?\n\nFive.', 2)).toEqual(['One.', 'Two three!'])
    expect(firstSentences('No full stop', 1)).toEqual(['No full stop.'])
  })

  it('parses a valid request unchanged', () => {
    const body = request({ instructions: 'short', use_internal_job_data: false })
    expect(parseJobChangePreviewRequest(body)).toEqual(body)
  })
})
