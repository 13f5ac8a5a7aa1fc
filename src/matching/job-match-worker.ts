import { parentPort, workerData } from 'node:worker_threads'
import type { JobMatchData } from './job-index.js'
import { type PairFilterSpec, pairFilterOf } from './match-filters.js'
import { JobCandidateScorer, type JobScoringParams, type JobTopMatches } from './score-job-candidates.js'

/** What a job matching worker is started with: the index on shared memory and the request. */
export interface JobWorkerInput {
  data: JobMatchData
  mask: Uint8Array
  params: JobScoringParams
  pair: PairFilterSpec | null
}

/** A slice of jobs to score, and its answer. */
export interface JobWorkerTask {
  id: number
  jobs: Int32Array
}
export interface JobWorkerResult {
  id: number
  results: JobTopMatches[]
}

// One worker thread of `scoreJobs`: scores the slices of jobs it is sent until it is terminated.
if (parentPort) {
  const input = workerData as JobWorkerInput
  const scorer = new JobCandidateScorer(
    input.data,
    input.mask,
    input.params,
    input.pair ? pairFilterOf(input.pair) : undefined,
  )
  const port = parentPort
  port.on('message', (task: JobWorkerTask) => {
    const results = Array.from(task.jobs, (job) => scorer.score(job))
    // Copied, not transferred: at most 100 matches a job, and empty answers share one buffer.
    const answer: JobWorkerResult = { id: task.id, results }
    port.postMessage(answer)
  })
}
