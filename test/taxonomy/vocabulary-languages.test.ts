import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type VocabularyDomainFile, VocabularyLanguagesResponse } from '../../src/schemas/index.js'
import { importEsco } from '../../src/taxonomy/import-esco.js'
import { importSkillhouse } from '../../src/taxonomy/import-skillhouse.js'
import { SkillNames } from '../../src/taxonomy/skill-names.js'
import { getSkill } from '../../src/taxonomy/taxonomy-operations.js'
import {
  displayName,
  resolveVocabLanguage,
  vocabularyLanguages,
} from '../../src/taxonomy/vocabulary-languages.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir, testFixture } from '../helpers/temp-tenant.js'

/** A vendor_a vocabulary with Spanish and Swedish names (languages only vendor_a may use). */
const EXTRA_LANGUAGES: VocabularyDomainFile = {
  external_id: 'dom-extra',
  domain_name: 'Extra languages',
  subdomains: [
    {
      external_id: 'sub-extra',
      subdomain_name: 'Extra',
      skill_clusters: [
        {
          external_id: 'clu-extra',
          skill_cluster_name: 'Extra',
          skills: [
            {
              external_id: 'sk-welding',
              skill_type: 'hard_skill',
              names: { en_uk: 'Welding', es: 'Soldadura', sv: 'Svetsning' },
              aliases: { es: ['soldar'] },
            },
          ],
        },
      ],
    },
  ],
}

describe('vocabulary languages and vendors', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  let escoSkill: string

  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'data'), 'acme', {
      vendors: ['vendor_a'],
      languages: ['en_uk', 'en_us', 'de', 'fr', 'nl', 'es'],
    })
    await importEsco(tenant, [testFixture('esco-mini')])
    const extra = join(temp.dir, 'extra')
    mkdirSync(extra)
    writeFileSync(join(extra, 'extra.json'), JSON.stringify(EXTRA_LANGUAGES))
    await importSkillhouse(tenant, [extra], { external_vendor: 'vendor_a' })
    const row = await tenant.database.one<{ id: string }>(
      "SELECT skill_id AS id FROM skill_labels WHERE external_vendor = 'vendor_a' AND label = 'write computer code'",
    )
    escoSkill = row?.id as string
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('lists per vendor whether it is activated, the languages the tenant can use and the skill count', async () => {
    const response = await vocabularyLanguages(tenant)
    expect(VocabularyLanguagesResponse.parse(response)).toEqual(response)
    const [vendorDefault, vendorA, vendorB] = response.vendors
    expect(vendorDefault).toMatchObject({
      external_vendor: 'vendor_default',
      activated: true,
      languages: ['en_uk', 'en_us', 'de', 'fr', 'nl'],
    })
    expect(vendorDefault?.skill_count).toBeGreaterThan(1000)
    // ESCO brought en and nl; the custom file es and sv, but sv is not activated on the tenant.
    expect(vendorA).toEqual({
      external_vendor: 'vendor_a',
      activated: true,
      languages: ['en_uk', 'en_us', 'nl', 'es'],
      skill_count: 31,
    })
    expect(vendorB).toEqual({ external_vendor: 'vendor_b', activated: false, languages: [], skill_count: 0 })
  })

  it('maps BCP 47 tags and the en alias to internal vocabulary languages', async () => {
    expect(await resolveVocabLanguage(tenant, 'vendor_default', undefined)).toBe('en_uk')
    expect(await resolveVocabLanguage(tenant, 'vendor_default', 'en')).toBe('en_uk')
    expect(await resolveVocabLanguage(tenant, 'vendor_default', 'en-GB')).toBe('en_uk')
    expect(await resolveVocabLanguage(tenant, 'vendor_default', 'en-US')).toBe('en_us')
    expect(await resolveVocabLanguage(tenant, 'vendor_default', 'nl-BE')).toBe('nl')
    expect(await resolveVocabLanguage(tenant, 'vendor_default', 'de-AT')).toBe('de')
    expect(await resolveVocabLanguage(tenant, 'vendor_a', 'es-MX')).toBe('es')
  })

  it('refuses a vendor_a-only language for vendor_default with 422 naming vocab_language and the valid values', async () => {
    await expect(resolveVocabLanguage(tenant, 'vendor_default', 'es')).rejects.toMatchObject({
      status: 422,
      message:
        "vocab_language: 'es' is available only with external_vendor=vendor_a; valid values for vendor_default on tenant acme: en, en_uk, en_us, de, fr, nl (or a BCP 47 tag of one of them)",
    })
    await expect(resolveVocabLanguage(tenant, 'vendor_default', 'zh-Hant-TW')).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(
        /^vocab_language: 'zh-Hant-TW' \(zh_tw\) is available only with external_vendor=vendor_a/,
      ),
    })
  })

  it('refuses an extra language for vendor_a when its vocabulary does not have it', async () => {
    await expect(resolveVocabLanguage(tenant, 'vendor_a', 'ja')).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining(
        "vocab_language: 'ja' is not a language of the vendor_a vocabulary on tenant acme (nor activated on it); valid values for vendor_a on tenant acme: en, en_uk, en_us, nl, es",
      ),
    })
    // Swedish names exist, but the tenant has not activated sv.
    await expect(resolveVocabLanguage(tenant, 'vendor_a', 'sv')).rejects.toMatchObject({ status: 422 })
    // German is a default language, but the vendor_a vocabulary has no German names.
    await expect(resolveVocabLanguage(tenant, 'vendor_a', 'de')).rejects.toMatchObject({ status: 422 })
  })

  it('refuses a value that names no language with 422 listing the valid values', async () => {
    await expect(resolveVocabLanguage(tenant, 'vendor_default', 'klingon')).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(
        /^vocab_language: 'klingon' is not a vocabulary language; valid values for vendor_default/,
      ),
    })
  })

  it('changes only the display name and aliases of a skill, never anything else', async () => {
    const english = await getSkill(tenant, escoSkill, 'vendor_a')
    const dutch = await getSkill(tenant, escoSkill, 'vendor_a', { vocab_language: 'nl-NL' })
    expect(english.skill_name).toBe('write computer code')
    expect(dutch.skill_name).toBe('computercode schrijven')
    expect(dutch.aliases).toEqual(['programmeren', 'code schrijven'])
    const { skill_name: _a, aliases: _b, ...englishRest } = english
    const { skill_name: _c, aliases: _d, ...dutchRest } = dutch
    expect(dutchRest).toEqual(englishRest)
  })

  it('falls back to the en_uk name where a language has none', async () => {
    const welding = await getSkill(tenant, 'sk-welding', 'vendor_a', { vocab_language: 'nl' })
    expect(welding.skill_name).toBe('Welding')
    expect(await displayName(tenant, 'sk-welding', 'vendor_a', 'es')).toBe('Soldadura')
    expect(await displayName(tenant, 'sk-welding', 'vendor_a', 'en_us')).toBe('Welding')
    expect(await displayName(tenant, 'sk-unknown', 'vendor_a', 'es')).toBeUndefined()
  })

  describe('SkillNames', () => {
    it('answers names with fallbacks: en_us to en_uk, other languages to en_uk, else any name', () => {
      const names = SkillNames.fromLabels([
        { skill_id: 'colour', language: 'en_uk', label: 'colour theory' },
        { skill_id: 'colour', language: 'en_us', label: 'color theory' },
        { skill_id: 'colour', language: 'nl', label: 'kleurenleer' },
        { skill_id: 'plain', language: 'en_uk', label: 'plain' },
        { skill_id: 'dutch-only', language: 'nl', label: 'alleen Nederlands' },
      ])
      expect(names.size).toBe(3)
      expect(names.name('colour', 'en_us')).toBe('color theory')
      expect(names.name('colour')).toBe('colour theory')
      expect(names.name('colour', 'nl')).toBe('kleurenleer')
      expect(names.name('plain', 'en_us')).toBe('plain')
      expect(names.name('plain', 'ja')).toBe('plain')
      expect(names.name('dutch-only', 'fr')).toBe('alleen Nederlands')
      expect(names.name('missing', 'nl')).toBeUndefined()
    })

    it('loads the names of one vendor from the tenant database', async () => {
      const names = await SkillNames.load(tenant.database, 'vendor_a')
      expect(names.size).toBe(31)
      expect(names.name(escoSkill, 'nl')).toBe('computercode schrijven')
      expect(names.name(escoSkill, 'en_us')).toBe('write computer code')
      expect(names.name('sk-welding', 'es')).toBe('Soldadura')
    })
  })
})
