import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CollectionMetric,
  CustomPropertyDefinition,
  DomainResponse,
  SkillClusterResponse,
  SkillDetailResponse,
  SubdomainResponse,
} from '../../src/schemas/index.js'
import {
  createCustomPropertyDefinition,
  createDomain,
  createSkill,
  createSkillCluster,
  createSubdomain,
  deleteDomain,
  deleteSkill,
  deleteSkillCluster,
  deleteSubdomain,
  getDomain,
  getSkill,
  getSkillCluster,
  getSubdomain,
  listCustomPropertyDefinitions,
  skillClusterCount,
  updateDomain,
  updateSkill,
  updateSkillCluster,
  updateSubdomain,
} from '../../src/taxonomy/taxonomy-operations.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

describe('taxonomy operations', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  /** A subdomain and a skill of the embedded default vocabulary (read-only). */
  let vocabulary: { subdomain: string; domain: string; skill: string; cluster: string }

  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'data'), 'acme')
    const row = await tenant.database.one<{
      skill: string
      cluster: string
      subdomain: string
      domain: string
    }>(
      `SELECT s.external_id AS skill, c.external_id AS cluster, sd.external_id AS subdomain, sd.domain_id AS domain
         FROM skills s JOIN skill_clusters c ON c.external_id = s.skill_cluster_id
         JOIN subdomains sd ON sd.external_id = c.subdomain_id
        WHERE s.external_vendor = 'vendor_default' ORDER BY s.external_id LIMIT 1`,
    )
    vocabulary = row as typeof vocabulary
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  describe('domains', () => {
    it('creates a custom domain and answers it with last_updated in UTC', async () => {
      const change = await createDomain(tenant, { external_id: 'dom-logistics', domain_name: 'Logistics' })
      expect(change).toMatchObject({ operation_type: 'domain_created', entity_external_id: 'dom-logistics' })
      const domain = await getDomain(tenant, 'dom-logistics')
      expect(DomainResponse.parse(domain)).toEqual(domain)
      expect(domain).toEqual({
        external_id: 'dom-logistics',
        domain_name: 'Logistics',
        last_updated: expect.stringMatching(ISO_UTC),
      })
    })

    it('answers 409 when a domain with the same external_id exists in that vendor', async () => {
      await expect(
        createDomain(tenant, { external_id: 'dom-logistics', domain_name: 'Again' }),
      ).rejects.toMatchObject({
        status: 409,
        message: "domain 'dom-logistics' already exists",
      })
      await expect(
        createDomain(tenant, { external_id: vocabulary.domain, domain_name: 'Shadow' }),
      ).rejects.toMatchObject({
        status: 409,
      })
    })

    it('rejects an invalid domain with 422 naming each field', async () => {
      const error = await createDomain(tenant, {
        external_id: 'has space',
        domain_name: '',
        colour: 'red',
      }).catch((caught: unknown) => caught)
      expect(error).toMatchObject({ status: 422 })
      const descriptions = (error as { descriptions: string[] }).descriptions
      expect(descriptions).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^external_id: must contain only letters/),
          expect.stringMatching(/^domain_name: must not be empty/),
          expect.stringMatching(/^colour: is not a field of a domain/),
        ]),
      )
    })

    it('refuses a vendor that is not activated with 403 naming the activated vendors', async () => {
      await expect(
        createDomain(tenant, { external_id: 'dom-b', domain_name: 'B' }, { external_vendor: 'vendor_b' }),
      ).rejects.toMatchObject({
        status: 403,
        message:
          "external_vendor 'vendor_b' is not activated on tenant acme; activated vendors: vendor_default",
      })
    })
  })

  describe('subdomains (4.7)', () => {
    it('answers 404 naming the domain when a subdomain refers to a domain that does not exist', async () => {
      await expect(
        createSubdomain(tenant, { external_id: 'sub-x', domain_id: 'dom-missing', subdomain_name: 'X' }),
      ).rejects.toMatchObject({
        status: 404,
        message: expect.stringMatching(/^domain 'dom-missing' does not exist/),
      })
    })

    it('answers a subdomain with last_updated as ISO UTC and custom properties only when included', async () => {
      await createCustomPropertyDefinition(tenant, 'taxonomy/subdomains', {
        property_name: 'owner',
        property_type: 'text',
      })
      await createSubdomain(tenant, {
        external_id: 'sub-warehousing',
        domain_id: 'dom-logistics',
        subdomain_name: 'Warehousing',
        custom_properties: { owner: 'Supply chain' },
      })
      const plain = await getSubdomain(tenant, 'sub-warehousing')
      expect(plain).toEqual({
        external_id: 'sub-warehousing',
        domain_id: 'dom-logistics',
        subdomain_name: 'Warehousing',
        last_updated: expect.stringMatching(ISO_UTC),
      })
      expect(SubdomainResponse.parse(plain)).toEqual(plain)
      const full = await getSubdomain(tenant, 'sub-warehousing', { include: ['custom_properties'] })
      expect(full.custom_properties).toEqual({ owner: 'Supply chain' })
    })

    it('answers 404 for an unknown subdomain and 422 for an unknown include value', async () => {
      await expect(getSubdomain(tenant, 'sub-nowhere')).rejects.toMatchObject({ status: 404 })
      await expect(getSubdomain(tenant, 'sub-warehousing', { include: ['entity'] })).rejects.toMatchObject({
        status: 422,
        message: expect.stringMatching(/^include\.0: /),
      })
    })

    it('serves the subdomains of the vocabulary too', async () => {
      const subdomain = await getSubdomain(tenant, vocabulary.subdomain)
      expect(subdomain.domain_id).toBe(vocabulary.domain)
    })

    it('checks custom property values against their definitions and names the field', async () => {
      await expect(
        createSubdomain(tenant, {
          external_id: 'sub-bad',
          domain_id: 'dom-logistics',
          subdomain_name: 'Bad',
          custom_properties: { owner: 42 },
        }),
      ).rejects.toMatchObject({
        status: 422,
        message: expect.stringMatching(/^custom_properties\.owner: must be a value of type text/),
      })
      await expect(
        createSubdomain(tenant, {
          external_id: 'sub-bad',
          domain_id: 'dom-logistics',
          subdomain_name: 'Bad',
          custom_properties: { region: 'EU' },
        }),
      ).rejects.toMatchObject({
        status: 422,
        message: expect.stringContaining(
          "custom_properties.region: no custom property 'region' is defined for taxonomy/subdomains; defined: owner",
        ),
      })
    })

    it('updates a custom subdomain, merges its custom properties and changes last_updated', async () => {
      const before = await getSubdomain(tenant, 'sub-warehousing')
      await new Promise((resolve) => setTimeout(resolve, 5))
      const change = await updateSubdomain(tenant, 'sub-warehousing', {
        subdomain_name: 'Warehousing and storage',
      })
      expect(change).toMatchObject({
        operation_type: 'subdomain_updated',
        details: { changed: ['subdomain_name'] },
      })
      const after = await getSubdomain(tenant, 'sub-warehousing', { include: ['custom_properties'] })
      expect(after.subdomain_name).toBe('Warehousing and storage')
      expect(after.custom_properties).toEqual({ owner: 'Supply chain' })
      expect(after.last_updated > before.last_updated).toBe(true)
      await updateSubdomain(tenant, 'sub-warehousing', { custom_properties: { owner: null } })
      expect(
        (await getSubdomain(tenant, 'sub-warehousing', { include: ['custom_properties'] })).custom_properties,
      ).toEqual({})
    })

    it('records no change for an update that changes nothing', async () => {
      expect(
        await updateSubdomain(tenant, 'sub-warehousing', { subdomain_name: 'Warehousing and storage' }),
      ).toBeNull()
    })

    it('refuses to change a subdomain of the vocabulary with 403', async () => {
      await expect(
        updateSubdomain(tenant, vocabulary.subdomain, { subdomain_name: 'Mine now' }),
      ).rejects.toMatchObject({
        status: 403,
        message: expect.stringContaining('belongs to the vendor_default vocabulary'),
      })
      await expect(deleteSubdomain(tenant, vocabulary.subdomain)).rejects.toMatchObject({ status: 403 })
    })

    it('moves a subdomain only to a domain that exists', async () => {
      await expect(
        updateSubdomain(tenant, 'sub-warehousing', { domain_id: 'dom-missing' }),
      ).rejects.toMatchObject({
        status: 404,
        message: expect.stringMatching(/^domain 'dom-missing' does not exist/),
      })
    })
  })

  describe('skill clusters', () => {
    it('creates, answers, updates and deletes a custom skill cluster', async () => {
      await createSkillCluster(tenant, {
        external_id: 'clu-forklifts',
        subdomain_id: 'sub-warehousing',
        skill_cluster_name: 'Forklifts',
      })
      const cluster = await getSkillCluster(tenant, 'clu-forklifts')
      expect(SkillClusterResponse.parse(cluster)).toEqual(cluster)
      expect(cluster).toMatchObject({ subdomain_id: 'sub-warehousing', skill_cluster_name: 'Forklifts' })
      await updateSkillCluster(tenant, 'clu-forklifts', { skill_cluster_name: 'Forklift trucks' })
      expect((await getSkillCluster(tenant, 'clu-forklifts')).skill_cluster_name).toBe('Forklift trucks')
      await createSkillCluster(tenant, {
        external_id: 'clu-temp',
        subdomain_id: 'sub-warehousing',
        skill_cluster_name: 'Temp',
      })
      await deleteSkillCluster(tenant, 'clu-temp')
      await expect(getSkillCluster(tenant, 'clu-temp')).rejects.toMatchObject({ status: 404 })
    })

    it('answers 404 naming the subdomain when a cluster refers to one that does not exist', async () => {
      await expect(
        createSkillCluster(tenant, {
          external_id: 'clu-x',
          subdomain_id: 'sub-missing',
          skill_cluster_name: 'X',
        }),
      ).rejects.toMatchObject({
        status: 404,
        message: expect.stringMatching(/^subdomain 'sub-missing' does not exist/),
      })
    })

    it('refuses with 409 to delete a subdomain or domain that still has children', async () => {
      await expect(deleteSubdomain(tenant, 'sub-warehousing')).rejects.toMatchObject({
        status: 409,
        message:
          "subdomain 'sub-warehousing' still has skill clusters (clu-forklifts); delete or move them first",
      })
      await expect(deleteDomain(tenant, 'dom-logistics')).rejects.toMatchObject({ status: 409 })
    })

    it('counts the skill clusters of the tenant as a collection metric (deprecated 4.9)', async () => {
      const metric = await skillClusterCount(tenant)
      expect(CollectionMetric.parse(metric)).toEqual(metric)
      const row = await tenant.database.one<{ n: number }>('SELECT count(*) AS n FROM skill_clusters')
      expect(metric).toMatchObject({
        entity_type: 'SkillCluster',
        entity_id: 'acme',
        metric_name: 'count',
        metric_value: row?.n,
      })
      expect(metric.last_update).toMatch(ISO_UTC)
    })
  })

  describe('skills', () => {
    it('creates a custom skill and answers it from GET /taxonomy/skills/{id}', async () => {
      await createCustomPropertyDefinition(tenant, 'taxonomy/skills', {
        property_name: 'licence_required',
        property_type: 'boolean',
      })
      await createSkill(tenant, {
        external_id: 'sk-reach-truck',
        skill_name: 'Reach truck operation',
        skill_cluster_id: 'clu-forklifts',
        skill_type: 'hard_skill',
        description: 'Operating a reach truck in narrow aisles.',
        names: { nl: 'Reachtruck besturen' },
        aliases: { en_uk: ['reach truck', 'reachtruck'], nl: ['reachtruck'] },
        custom_properties: { licence_required: true },
      })
      const skill = await getSkill(tenant, 'sk-reach-truck', 'vendor_default', {
        include: ['custom_properties'],
      })
      expect(SkillDetailResponse.parse(skill)).toEqual(skill)
      expect(skill).toEqual({
        external_id: 'sk-reach-truck',
        external_vendor: 'vendor_default',
        skill_name: 'Reach truck operation',
        skill_type: 'hard_skill',
        skill_cluster_id: 'clu-forklifts',
        subdomain_id: 'sub-warehousing',
        domain_id: 'dom-logistics',
        description: 'Operating a reach truck in narrow aisles.',
        aliases: ['reach truck', 'reachtruck'],
        custom: true,
        last_updated: expect.stringMatching(ISO_UTC),
        custom_properties: { licence_required: true },
      })
    })

    it('answers a vocabulary skill with custom false and no custom properties unless included', async () => {
      const skill = await getSkill(tenant, vocabulary.skill)
      expect(skill).toMatchObject({
        external_id: vocabulary.skill,
        custom: false,
        skill_cluster_id: vocabulary.cluster,
      })
      expect(skill).not.toHaveProperty('custom_properties')
    })

    it('answers 409 for an existing skill id and 404 naming the cluster for an unknown one', async () => {
      await expect(
        createSkill(tenant, { external_id: vocabulary.skill, skill_name: 'Copy' }),
      ).rejects.toMatchObject({ status: 409 })
      await expect(
        createSkill(tenant, { external_id: 'sk-x', skill_name: 'X', skill_cluster_id: 'clu-missing' }),
      ).rejects.toMatchObject({
        status: 404,
        message: expect.stringMatching(/^skill cluster 'clu-missing' does not exist/),
      })
    })

    it('rejects an invalid skill with 422 naming the field', async () => {
      await expect(
        createSkill(tenant, { external_id: 'sk-y', skill_name: 'Y', skill_type: 'talent' }),
      ).rejects.toMatchObject({
        status: 422,
        message: expect.stringMatching(/^skill_type: /),
      })
      await expect(
        createSkill(tenant, {
          external_id: 'sk-y',
          skill_name: 'Y',
          custom_properties: { licence_required: 'yes' },
        }),
      ).rejects.toMatchObject({
        status: 422,
        message: expect.stringMatching(
          /^custom_properties\.licence_required: must be a value of type boolean/,
        ),
      })
    })

    it('updates a custom skill: the name, the description and its other languages', async () => {
      const change = await updateSkill(tenant, 'sk-reach-truck', {
        skill_name: 'Reach truck driving',
        names: { de: 'Schubmaststapler fahren' },
      })
      expect(change?.operation_type).toBe('skill_updated')
      expect((await getSkill(tenant, 'sk-reach-truck')).skill_name).toBe('Reach truck driving')
      expect(
        (await getSkill(tenant, 'sk-reach-truck', 'vendor_default', { vocab_language: 'de' })).skill_name,
      ).toBe('Schubmaststapler fahren')
      expect(
        (await getSkill(tenant, 'sk-reach-truck', 'vendor_default', { vocab_language: 'nl' })).skill_name,
      ).toBe('Reachtruck besturen')
      expect(await updateSkill(tenant, 'sk-reach-truck', { skill_name: 'Reach truck driving' })).toBeNull()
      await updateSkill(tenant, 'sk-reach-truck', { description: null })
      expect(
        (await getSkill(tenant, 'sk-reach-truck', 'vendor_default', { include: ['custom_properties'] }))
          .description,
      ).toBeNull()
    })

    it('refuses to change or delete a vocabulary skill with 403', async () => {
      await expect(updateSkill(tenant, vocabulary.skill, { skill_name: 'Mine' })).rejects.toMatchObject({
        status: 403,
      })
      await expect(deleteSkill(tenant, vocabulary.skill)).rejects.toMatchObject({ status: 403 })
    })

    it('answers 404 for a skill after it is deleted', async () => {
      await createSkill(tenant, { external_id: 'sk-short-lived', skill_name: 'Short lived' })
      await deleteSkill(tenant, 'sk-short-lived')
      await expect(getSkill(tenant, 'sk-short-lived')).rejects.toMatchObject({
        status: 404,
        message: expect.stringMatching(/^skill 'sk-short-lived' does not exist/),
      })
      const labels = await tenant.database.all("SELECT 1 FROM skill_labels WHERE skill_id = 'sk-short-lived'")
      expect(labels).toEqual([])
    })

    it('answers 403 naming the activated vendors for a vendor the tenant has not activated, and 422 for no vendor', async () => {
      await expect(getSkill(tenant, vocabulary.skill, 'vendor_a')).rejects.toMatchObject({
        status: 403,
        message: expect.stringContaining('activated vendors: vendor_default'),
      })
      await expect(getSkill(tenant, vocabulary.skill, 'vendor_z')).rejects.toMatchObject({
        status: 422,
        message:
          "external_vendor: 'vendor_z' is not a vendor; valid values: vendor_default, vendor_a, vendor_b",
      })
    })

    it('refuses with 409 to delete a cluster that still holds skills', async () => {
      await expect(deleteSkillCluster(tenant, 'clu-forklifts')).rejects.toMatchObject({
        status: 409,
        message: expect.stringContaining('still has skills (sk-reach-truck)'),
      })
    })
  })

  describe('custom property definitions (4.8)', () => {
    it('lists the definitions of an entity type in the order they were made', async () => {
      await createCustomPropertyDefinition(tenant, 'taxonomy/domains', {
        property_name: 'steward',
        property_type: 'text',
      })
      await createCustomPropertyDefinition(tenant, 'taxonomy/domains', {
        property_name: 'tags',
        property_type: 'list[text]',
      })
      const definitions = await listCustomPropertyDefinitions(tenant, 'taxonomy/domains')
      expect(definitions).toEqual([
        { property_name: 'steward', property_type: 'text' },
        { property_name: 'tags', property_type: 'list[text]' },
      ])
      for (const definition of definitions)
        expect(CustomPropertyDefinition.parse(definition)).toEqual(definition)
      expect(await listCustomPropertyDefinitions(tenant, 'vacancies')).toEqual([])
    })

    it('answers 409 for a property name the entity type already has', async () => {
      await expect(
        createCustomPropertyDefinition(tenant, 'taxonomy/domains', {
          property_name: 'steward',
          property_type: 'number',
        }),
      ).rejects.toMatchObject({
        status: 409,
        message: "custom property of taxonomy/domains 'steward' already exists",
      })
    })

    it('rejects an unknown entity type and an invalid definition with 422 naming the field', async () => {
      await expect(listCustomPropertyDefinitions(tenant, 'taxonomy/planets')).rejects.toMatchObject({
        status: 422,
        message: expect.stringMatching(
          /^entity_type: 'taxonomy\/planets' does not carry custom properties; valid values: taxonomy\/domains, /,
        ),
      })
      await expect(
        createCustomPropertyDefinition(tenant, 'employees', { property_name: 'a__b', property_type: 'text' }),
      ).rejects.toMatchObject({ status: 422, message: 'property_name: must not contain "__"' })
      await expect(
        createCustomPropertyDefinition(tenant, 'employees', {
          property_name: 'grade',
          property_type: 'integer',
        }),
      ).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^property_type: /) })
    })

    it('applies domain definitions to domain custom properties', async () => {
      await updateDomain(tenant, 'dom-logistics', { custom_properties: { steward: 'Ana', tags: ['ops'] } })
      expect(
        (await getDomain(tenant, 'dom-logistics', { include: ['custom_properties'] })).custom_properties,
      ).toEqual({
        steward: 'Ana',
        tags: ['ops'],
      })
      await expect(
        updateDomain(tenant, 'dom-logistics', { custom_properties: { tags: 'ops' } }),
      ).rejects.toMatchObject({
        status: 422,
        message: expect.stringMatching(/^custom_properties\.tags: must be a value of type list\[text\]/),
      })
    })
  })
})
