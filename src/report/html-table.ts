import type { LocaleFormat } from './number-format.js'

/** Rows of a long table the page shows; the workbook has every row. */
export const PAGE_ROWS = 50

/** A table cell: its escaped HTML and how it aligns. */
export type Cell = { html: string; kind: 'text' | 'number' | 'id' }
/** A cell of text. */
export const text = (value: string): Cell => ({ html: escapeHtml(value), kind: 'text' })
/** A cell of a number, aligned right. */
export const number = (value: string): Cell => ({ html: escapeHtml(value), kind: 'number' })
/** A cell of an id, never wrapped. */
export const id = (value: string): Cell => ({ html: escapeHtml(value), kind: 'id' })

/** A table of `rows` under `headers`; nothing when there are no rows. */
export function table(headers: string[], rows: Cell[][]): string {
  if (rows.length === 0) return ''
  const head = headers.map((header) => `<th>${escapeHtml(header)}</th>`).join('')
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((cell) => (cell.kind === 'text' ? `<td>${cell.html}</td>` : `<td class="${cell.kind}">${cell.html}</td>`)).join('')}</tr>`,
    )
    .join('\n')
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`
}

/** The line under a long table that says how many rows the workbook has besides. */
export function more(total: number, what: string, format: LocaleFormat): string {
  return total > PAGE_ROWS
    ? `<p class="more">The first ${format.count(PAGE_ROWS)} of ${format.count(total)} ${what}; all of them are in report.xlsx.</p>`
    : ''
}

/** Up to six names, then how many more. */
export function listed(names: readonly string[], format: LocaleFormat): string {
  if (names.length === 0) return '–'
  const shown = names.slice(0, 6).join(', ')
  return names.length > 6 ? `${shown} and ${format.count(names.length - 6)} more` : shown
}

/** Text made safe to stand in HTML text and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
