/**
 * Rows as a table a person reads on a terminal: a header line, then one line a row, each column
 * as wide as its widest cell (the last one unpadded), two spaces between columns. Numbers are
 * right-aligned where `numeric` says so.
 */
export function textTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: readonly number[] = [],
): string[] {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  )
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => {
        if (column === cells.length - 1) return cell
        const width = widths[column] ?? 0
        return numeric.includes(column) ? cell.padStart(width) : cell.padEnd(width)
      })
      .join('  ')
      .trimEnd()
  return [line(headers), ...rows.map(line)]
}
