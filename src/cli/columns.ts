/**
 * The width the console summary wraps to: the terminal's, or `COLUMNS` when set (a pipe, a CI log), else the
 * summary's default (src/outputs/console-table.ts).
 */
export function consoleColumns(stream: { isTTY?: boolean; columns?: number } = process.stdout): number | undefined {
  if (stream.isTTY === true && stream.columns !== undefined && stream.columns > 0) return stream.columns;
  const env = Number(process.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : undefined;
}

/** `{ columns }` for the summary's options, or nothing when the width is not known. */
export function columnsOption(): { columns?: number } {
  const columns = consoleColumns();
  return columns === undefined ? {} : { columns };
}
