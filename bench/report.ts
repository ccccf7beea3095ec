/** A Markdown table, as every benchmark prints its figures. */
export const table = (header: string[], rows: string[][]): string =>
  [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n') + '\n';

/**
 * Ends the process when a benchmark's `main` settles: 0 when it finished, 1
 * (the error printed) when it threw. The exit is explicit: an engine's kept
 * processes or pools would otherwise hold the process open.
 */
export function exitWhenDone(main: Promise<unknown>): void {
  main.then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
