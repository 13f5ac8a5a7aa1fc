import { parentPort, workerData } from 'node:worker_threads'
import { PostalCodeTable } from '../geo/postal-codes.js'
import type { Row, SqlParams, TenantDatabase } from '../store/tenant-database.js'
import type { MatchingTenant } from './match-jobs.js'
import { answerVacancyMatching, prepareVacancyMatching, vacancyBatch } from './match-vacancies.js'
import type { EmployeeForMatching } from './vacancy-employee.js'
import type { VacancyIndex } from './vacancy-index.js'
import {
  type FromThread,
  listItemsOf,
  type ToThread,
  type VacancyAnswer,
  type VacancyBatchSetup,
} from './vacancy-worker-pool.js'

/**
 * The loop of a thread of `VacancyWorkerPool` (vacancy-worker-pool.ts): answers the employees it
 * is sent with the request and index of its batch; its reads go to the calling thread.
 */
if (parentPort) {
  const port = parentPort
  const setup = workerData as VacancyBatchSetup
  const reads = new Map<number, { resolve: (rows: Row[]) => void; reject: (error: Error) => void }>()
  let nextRead = 0
  const all = (sql: string, params?: SqlParams): Promise<Row[]> =>
    new Promise((resolve, reject) => {
      const id = nextRead++
      reads.set(id, { resolve, reject })
      const sent = Array.isArray(params) ? params.map(listItemsOf) : undefined
      port.postMessage({ type: 'read', id, sql, params: sent } satisfies FromThread)
    })
  // The answer path reads through `all` and `one` only: the thread's database is those two.
  const database = {
    all,
    one: async (sql: string, params?: SqlParams) => (await all(sql, params))[0],
  } as unknown as TenantDatabase
  const tenant: MatchingTenant = { database, settings: setup.settings, baseUrl: setup.baseUrl }
  const index: VacancyIndex = {
    ...setup.index,
    postal: setup.postal ? PostalCodeTable.of(setup.postal) : undefined,
  }
  const batch = (async () => {
    const prepared = await prepareVacancyMatching(tenant, setup.body, setup.query)
    const parts = vacancyBatch(database, index)
    return (employee: EmployeeForMatching) => answerVacancyMatching(tenant, index, employee, prepared, parts)
  })()
  const answer = async (employees: EmployeeForMatching[]): Promise<VacancyAnswer[]> => {
    const answerOne = await batch
    const answers: VacancyAnswer[] = []
    for (const employee of employees) answers.push(await answerOne(employee))
    return answers
  }
  port.on('message', (message: ToThread) => {
    if (message.type === 'rows') {
      const read = reads.get(message.id)
      reads.delete(message.id)
      if (message.error !== undefined) read?.reject(new Error(message.error))
      else read?.resolve(message.rows ?? [])
      return
    }
    answer(message.employees).then(
      (answers) => port.postMessage({ type: 'answered', id: message.id, answers } satisfies FromThread),
      (error: unknown) =>
        port.postMessage({
          type: 'answered',
          id: message.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies FromThread),
    )
  })
}
