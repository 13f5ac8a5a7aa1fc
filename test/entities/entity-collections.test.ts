import { describe, expect, it } from 'vitest'
import { ENTITY_COLLECTIONS, entityCollection } from '../../src/entities/entity-collections.js'
import { ENTITY_KINDS } from '../../src/records/entity-kinds.js'

describe('the entity collections of the resource pattern', () => {
  it('finds a collection by its path below the base URL, and nothing else', () => {
    expect(entityCollection('job_architecture/jobs')?.kind.entity).toBe('jobs')
    expect(entityCollection('organisational_units')?.noun).toBe('organisational unit')
    expect(entityCollection('jobs')).toBeUndefined()
    expect(entityCollection('skill_events')).toBeUndefined()
  })

  it('stores each collection as its ingest entity, one collection per entity', () => {
    const entities = ENTITY_COLLECTIONS.map((collection) => collection.kind.entity)
    expect(new Set(entities).size).toBe(entities.length)
    for (const entity of entities) expect(ENTITY_KINDS.some((kind) => kind.entity === entity)).toBe(true)
  })

  it('asks who refers to a record and what goes with it by fixed SQL taking the id as $1', () => {
    for (const collection of ENTITY_COLLECTIONS) {
      for (const sql of [
        ...collection.dependents.map((dependent) => dependent.sql),
        ...collection.cascade,
        ...collection.touchOnDelete,
      ]) {
        expect(sql, collection.path).toContain('$1')
      }
    }
  })
})
