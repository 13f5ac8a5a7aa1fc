import { evaluationRows, formatTable } from './evaluation-table.js'
import { recommendationRows } from './recommendation-eval.js'

/**
 * `npm run eval`: one table of the public dev sets (RP@5, RP@10, MRR; skipped when the dev set
 * folder is not beside the repository), the explicit-mention set (precision, recall, F1) and the
 * implied-skill set (RP@5, MRR), for the engine, its mention finder alone and the BM25 baseline;
 * then the recommendations on the demo tenant (recommendation-eval.ts): related skills by held-out
 * recall@10 (column RP@10) and MRR beside popularity, course coverage of the top 3 (column R)
 * beside random and popularity.
 */
console.log(formatTable([...(await evaluationRows()), ...(await recommendationRows())]))
