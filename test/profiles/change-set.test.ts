import { describe, expect, it } from 'vitest'
import {
  changedAfter,
  employeeSelection,
  familiesToDerive,
  jobSelection,
  type LastRun,
  RECENT_DAYS,
  vacancySelection,
  vendorScope,
} from '../../src/profiles/change-set.js'

const lastRun: LastRun = { last_seq: 40, last_as_of: '2026-06-30', vocabularies: { vendor_default: 'sig-a' } }

describe('vendorScope', () => {
  it('derives only what changed after the last run when the vocabulary is the same', () => {
    expect(vendorScope(lastRun, 'vendor_default', 'sig-a', false)).toEqual({
      full: false,
      since: 40,
      reason: 'inputs_changed',
    })
  })

  it('derives everything when asked to, on the first run, or when the vocabulary changed', () => {
    expect(vendorScope(lastRun, 'vendor_default', 'sig-a', true)).toEqual({
      full: true,
      since: -1,
      reason: 'full_requested',
    })
    expect(vendorScope({ ...lastRun, last_as_of: null }, 'vendor_default', 'sig-a', false).reason).toBe(
      'first_run',
    )
    expect(vendorScope(lastRun, 'vendor_default', 'sig-b', false)).toMatchObject({
      full: true,
      since: -1,
      reason: 'vocabulary_changed',
    })
    // A vendor the last run did not know has no signature to compare with.
    expect(vendorScope(lastRun, 'acme', 'sig-a', false).reason).toBe('vocabulary_changed')
  })
})

describe('changedAfter', () => {
  it('keeps the records changed after the sequence, in the order given', () => {
    const records = [
      { external_id: 'f-b', change_seq: 41 },
      { external_id: 'f-a', change_seq: 40 },
      { external_id: 'f-c', change_seq: 55 },
    ]
    expect(changedAfter(records, 40)).toEqual(['f-b', 'f-c'])
    expect(changedAfter(records, -1)).toEqual(['f-b', 'f-a', 'f-c'])
  })
})

describe('familiesToDerive', () => {
  const all = ['fam-1', 'fam-2', 'fam-3', 'fam-4']

  it('names nothing when no family and no job was derived', () => {
    expect([...familiesToDerive(all, [], [])]).toEqual([])
  })

  it('derives a family whose record changed, and one of whose jobs was derived with it', () => {
    const families = familiesToDerive(all, ['fam-3'], [{ job_family_id: 'fam-1', changed: false }])
    expect([...families]).toEqual([
      ['fam-1', 'job_derived'],
      ['fam-3', 'record_changed'],
    ])
  })

  it('derives every family when a job record changed (the job may have left a family)', () => {
    const families = familiesToDerive(all, ['fam-2'], [{ job_family_id: 'fam-4', changed: true }])
    expect([...families]).toEqual([
      ['fam-1', 'a_job_record_changed'],
      ['fam-2', 'record_changed'],
      ['fam-3', 'a_job_record_changed'],
      ['fam-4', 'job_derived'],
    ])
  })

  it('ignores a job whose family is not among the tenant families', () => {
    const families = familiesToDerive(all, [], [{ job_family_id: 'fam-gone', changed: false }])
    expect(families.size).toBe(0)
  })
})

describe('job and vacancy selections', () => {
  it('selects jobs changed after the scope and those of changed families', () => {
    const scope = vendorScope(lastRun, 'vendor_default', 'sig-a', false)
    expect(jobSelection(scope, ['fam-2'])).toEqual({ changedAfter: 40, ofFamilies: ['fam-2'] })
  })

  it('selects vacancies changed after the scope and those of derived jobs; a full scope takes all', () => {
    const full = vendorScope(lastRun, 'vendor_default', 'sig-a', true)
    expect(vacancySelection(full, ['job-1'])).toEqual({ changedAfter: -1, ofJobs: ['job-1'] })
  })
})

describe('employeeSelection', () => {
  const incremental = vendorScope(lastRun, 'vendor_default', 'sig-a', false)

  it('takes every employee in a full run', () => {
    const full = vendorScope(lastRun, 'vendor_default', 'sig-b', false)
    expect(employeeSelection(full, '2026-06-30', '2026-07-01', ['job-1'], [])).toEqual({ all: true })
  })

  it('looks for events that came due between the last as-of date and this one', () => {
    expect(employeeSelection(incremental, '2026-06-30', '2026-07-15', [], [])).toEqual({
      all: false,
      changedAfter: 40,
      dueAfter: '2026-06-30',
      dueUpTo: '2026-07-15',
      horizonDays: RECENT_DAYS,
      references: null,
    })
  })

  it('orders the two dates when this run is as of an earlier date than the last', () => {
    const selection = employeeSelection(incremental, '2026-06-30', '2025-12-31', [], [])
    expect(selection).toMatchObject({ dueAfter: '2025-12-31', dueUpTo: '2026-06-30' })
  })

  it('uses this as-of date on both sides before any run recorded one', () => {
    const selection = employeeSelection(incremental, null, '2026-06-30', [], [])
    expect(selection).toMatchObject({ dueAfter: '2026-06-30', dueUpTo: '2026-06-30' })
  })

  it('reads the events that name jobs or courses only when some were derived again', () => {
    expect(employeeSelection(incremental, '2026-06-30', '2026-06-30', [], ['c-1'])).toMatchObject({
      references: { jobs: [], courses: ['c-1'] },
    })
    expect(employeeSelection(incremental, '2026-06-30', '2026-06-30', ['job-1'], [])).toMatchObject({
      references: { jobs: ['job-1'], courses: [] },
    })
  })

  it('counts the low-data horizon in whole days of the model years', () => {
    expect(RECENT_DAYS).toBe(Math.floor(RECENT_DAYS))
    expect(RECENT_DAYS).toBeGreaterThan(365)
  })
})
