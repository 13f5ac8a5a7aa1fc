import {
  exportOrgStructure,
  gapOfEmployee,
  previewJobDescription,
  showJobPreview,
} from './analytics-operations.js'
import { addWebhook, exportOutbox, listWebhooks, removeWebhook, replayWebhook } from './event-operations.js'
import { extractWithTenantVocabulary } from './extraction-operations.js'
import { ingestFiles } from './ingest-operations.js'
import {
  matchEmployeesForJobs,
  matchVacanciesForAll,
  matchVacanciesForEmployee,
} from './matching-operations.js'
import { demoRun, deriveTenantProfiles, nightlyRun } from './pipeline-operations.js'
import { readFamilyProfile, readProfile } from './profile-operations.js'
import { recommendCoursesForGap, relatedSkillsOf } from './recommend-operations.js'
import { writeTenantReport } from './report-operations.js'
import { importPostal, importVocabulary } from './taxonomy-operations.js'
import type { TenantOperation } from './tenant-operation.js'
import { readTenantState, updateTenantSettings } from './tenant-operations.js'

/** Every operation a server runs for a command, by name (the local channel's vocabulary). */
export const OPERATIONS: ReadonlyMap<string, TenantOperation<never, unknown>> = new Map(
  [
    addWebhook,
    demoRun,
    deriveTenantProfiles,
    exportOrgStructure,
    exportOutbox,
    extractWithTenantVocabulary,
    gapOfEmployee,
    importPostal,
    importVocabulary,
    ingestFiles,
    listWebhooks,
    matchEmployeesForJobs,
    matchVacanciesForAll,
    matchVacanciesForEmployee,
    nightlyRun,
    previewJobDescription,
    readFamilyProfile,
    readProfile,
    readTenantState,
    recommendCoursesForGap,
    relatedSkillsOf,
    removeWebhook,
    replayWebhook,
    showJobPreview,
    updateTenantSettings,
    writeTenantReport,
  ].map((operation) => [operation.name, operation as TenantOperation<never, unknown>]),
)
