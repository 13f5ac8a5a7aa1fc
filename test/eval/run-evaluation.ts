import { evaluationRows, formatTable } from './evaluation-table.js'

/**
 * `npm run eval`: one table of the public dev sets (RP@5, RP@10, MRR; skipped when the dev set
 * folder is not beside the repository), the explicit-mention set (precision, recall, F1) and the
 * implied-skill set (RP@5, MRR), for the engine, its mention finder alone and the BM25 baseline.
 */
console.log(formatTable(await evaluationRows()))
