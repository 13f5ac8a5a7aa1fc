import { exportAllJobs, type JobMatchingQuery, matchJobs } from '../matching/match-jobs.js'
import { matchAllEmployees, matchVacancies } from '../matching/match-vacancies.js'
import type { VacancyMatchingQuery } from '../matching/vacancy-match-schema.js'
import { tenantOperation } from './tenant-operation.js'

/** `skillhouse match jobs` (4.10): one page, or every job (`all_pages`). */
export const matchEmployeesForJobs = tenantOperation(
  'match.jobs',
  false,
  async (tenant, params: { body: unknown; query: JobMatchingQuery; all_pages: boolean }) =>
    params.all_pages
      ? (await exportAllJobs(tenant, params.body, params.query)).response
      : matchJobs(tenant, params.body, params.query),
)

/** `skillhouse match vacancies --employee ID` (4.11). */
export const matchVacanciesForEmployee = tenantOperation(
  'match.vacancies',
  false,
  (tenant, params: { employee: string; body: unknown; query: VacancyMatchingQuery }) =>
    matchVacancies(tenant, params.employee, params.body, params.query),
)

/** `skillhouse match vacancies` for every employee: each answer streamed as an item. */
export const matchVacanciesForAll = tenantOperation(
  'match.vacancies.all',
  false,
  (tenant, params: { body: unknown; query: VacancyMatchingQuery }, context) =>
    matchAllEmployees(tenant, params.body, params.query, (response) => context.item(response)),
)
