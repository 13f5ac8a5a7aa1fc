import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haversineKm } from '../../src/geo/haversine.js'
import {
  importPostalCodes,
  lookupPostalCode,
  PostalCodeTable,
  postalKeyCandidates,
} from '../../src/geo/postal-codes.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir, testFixture } from '../helpers/temp-tenant.js'

const FIXTURE = testFixture('geo', 'postal-codes.csv')
const DUMP = testFixture('geo', 'geonames-dump.txt')
const SHARED = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'geonames-postal')

describe('postal codes', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'data'), 'geo')
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('imports a GeoNames CSV, rejecting rows without coordinates or country, with their lines', async () => {
    const summary = await importPostalCodes(tenant.database, [FIXTURE])
    expect(summary.files[0]).toMatchObject({
      format: 'csv',
      rows_read: 12,
      rows_rejected: 2,
      codes: 9,
      countries: ['BE', 'DE', 'FR', 'GB', 'NL'],
      rejects: [
        { line: 12, reason: "latitude must be a number from -90 to 90; got ''" },
        { line: 13, reason: "country_code must be an ISO 3166-1 alpha-2 code; got 'XX1'" },
      ],
    })
    expect(summary.countries).toEqual([
      { country: 'BE', codes: 5 },
      { country: 'DE', codes: 1 },
      { country: 'FR', codes: 1 },
      { country: 'GB', codes: 1 },
      { country: 'NL', codes: 1 },
    ])
  })

  it('places a code with several places at their mean and keeps unquoted commas in place names', async () => {
    const table = await PostalCodeTable.load(tenant.database)
    expect(table.lookup('BE', '1050')).toMatchObject({ lat: 50.8332, lng: 4.3668, place: 'Ixelles' })
    expect(table.lookup('de', '10115')).toMatchObject({
      place: 'Acme Werbung, Berlin Mitte',
      lat: 52.532,
      lng: 13.3849,
    })
  })

  it('finds codes as people write them: NL with letters, GB full codes, spaces and case', async () => {
    expect(postalKeyCandidates('GB', 'SW1A 1AA')).toEqual(['SW1A1AA', 'SW1A'])
    expect(postalKeyCandidates('NL', '1012ab')).toEqual(['1012AB', '1012'])
    expect(postalKeyCandidates('US', '12345-6789')).toEqual(['12345-6789', '12345'])
    const table = await PostalCodeTable.load(tenant.database, ['NL', 'GB'])
    expect(table.lookup('NL', '1012 AB')?.postal_code).toBe('1012')
    expect(table.lookup('GB', 'sw1a1aa')?.postal_code).toBe('SW1A')
    expect(table.lookup('GB', 'SW1A 1AA')?.postal_code).toBe('SW1A')
    expect(table.lookup('BE', '1050')).toBeUndefined()
    expect(table.hasCountry('BE')).toBe(false)
    expect(await lookupPostalCode(tenant.database, 'be', ' 1000 ')).toMatchObject({
      lat: 50.8466,
      lng: 4.3528,
    })
    expect(await lookupPostalCode(tenant.database, 'BE', '9999')).toBeUndefined()
  })

  it('reads the tab-separated GeoNames dump; a country imported again replaces its codes', async () => {
    const summary = await importPostalCodes(tenant.database, [DUMP])
    expect(summary.files[0]).toMatchObject({
      format: 'geonames_txt',
      rows_read: 2,
      rows_rejected: 0,
      codes: 2,
    })
    expect(await lookupPostalCode(tenant.database, 'LU', 'L-1009')).toMatchObject({ lat: 49.6117, lng: 6.13 })
    // BE now holds only the dump's one code; the other countries are untouched.
    expect(summary.countries).toEqual([
      { country: 'BE', codes: 1 },
      { country: 'LU', codes: 1 },
    ])
    expect(await lookupPostalCode(tenant.database, 'BE', '1000')).toMatchObject({ lat: 50.85, lng: 4.35 })
    expect(await lookupPostalCode(tenant.database, 'BE', '2000')).toBeUndefined()
    expect(await lookupPostalCode(tenant.database, 'FR', '75001')).toBeDefined()
  })

  it('refuses a CSV whose header is not the GeoNames one, naming the file', async () => {
    const bad = join(temp.dir, 'bad.csv')
    writeFileSync(bad, 'country,code,lat,lng\nBE,1000,50.8,4.3\n')
    await expect(importPostalCodes(tenant.database, [bad])).rejects.toMatchObject({
      status: 422,
      descriptions: [expect.stringMatching(/^bad\.csv: line 1 must be the GeoNames postal-code header/)],
    })
    await expect(importPostalCodes(tenant.database, [join(temp.dir, 'missing.csv')])).rejects.toMatchObject({
      status: 400,
    })
  })

  it('measures great-circle distances in kilometres', () => {
    expect(haversineKm(50.8466, 4.3528, 51.2194, 4.4025)).toBeCloseTo(41.599, 2)
    expect(haversineKm(50.8466, 4.3528, 48.8603, 2.3477)).toBeCloseTo(263.504, 2)
    expect(haversineKm(0, 0, 0, 180)).toBeCloseTo(Math.PI * 6371.0088, 6)
  })
})

if (existsSync(SHARED)) {
  describe('postal codes of the shared GeoNames files', () => {
    const temp = tempDir()
    let tenant: OpenTenant
    beforeAll(async () => {
      tenant = await createOpenTenant(join(temp.dir, 'data'), 'geo-shared')
    })
    afterAll(() => {
      tenant.database.close()
      temp.cleanup()
    })

    it('imports all six countries, tolerating the unquoted commas of German place names', async () => {
      const summary = await importPostalCodes(tenant.database, [SHARED])
      expect(summary.files).toHaveLength(6)
      expect(summary.countries.map((country) => country.country)).toEqual([
        'BE',
        'DE',
        'FR',
        'GB',
        'NL',
        'US',
      ])
      expect(summary.rows_rejected).toBe(0)
      expect(summary.rows_read).toBe(150_962)
      for (const country of summary.countries) expect(country.codes).toBeGreaterThan(1000)
      expect(await lookupPostalCode(tenant.database, 'NL', '1012 AB')).toMatchObject({ postal_code: '1012' })
      expect(await lookupPostalCode(tenant.database, 'GB', 'EC1A 1BB')).toMatchObject({ postal_code: 'EC1A' })
      expect(await lookupPostalCode(tenant.database, 'US', '10001')).toBeDefined()
      const brussels = await lookupPostalCode(tenant.database, 'BE', '1000')
      const antwerp = await lookupPostalCode(tenant.database, 'BE', '2000')
      expect(
        haversineKm(brussels?.lat ?? 0, brussels?.lng ?? 0, antwerp?.lat ?? 0, antwerp?.lng ?? 0),
      ).toBeGreaterThan(35)
    })
  })
}
