import Table from 'cli-table3';
import { stringify } from 'yaml';
import type { OutputFormat } from '../context/connection.ts';

/** How a resource shows in a table: its columns, and the id `--quiet` prints. */
export interface View<T> {
  columns: ReadonlyArray<readonly [header: string, cell: (item: T) => string | number | null | undefined]>;
  id: (item: T) => string;
}

export interface OutputOptions {
  output: OutputFormat;
  quiet?: boolean;
}

/** Machine formats print the API's `data` unchanged. */
function printData(data: unknown, output: OutputFormat): void {
  process.stdout.write(output === 'yaml' ? stringify(data) : `${JSON.stringify(data, null, 2)}\n`);
}

/** A borderless, aligned table (the kubectl look): headers in capitals, two spaces between columns. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string>>): string {
  const table = new Table({
    head: headers.map((h) => h.toUpperCase()),
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    wordWrap: false,
  });
  table.push(...rows.map((row) => [...row]));
  return `${table.toString().split('\n').map((line) => line.trimEnd()).join('\n')}\n`;
}

function cells<T>(view: View<T>, item: T): string[] {
  return view.columns.map(([, cell]) => {
    const value = cell(item);
    return value === null || value === undefined || value === '' ? '-' : String(value);
  });
}

/** A list: the full page shape `{ items, nextCursor }` in json/yaml, ids with --quiet, else a table. */
export function printList<T>(page: { items: T[]; nextCursor: string | null }, view: View<T>, options: OutputOptions): void {
  if (options.output !== 'table') return printData(page, options.output);
  if (options.quiet) {
    for (const item of page.items) process.stdout.write(`${view.id(item)}\n`);
    return;
  }
  if (page.items.length === 0) {
    process.stderr.write('No resources found.\n');
    return;
  }
  process.stdout.write(formatTable(view.columns.map(([h]) => h), page.items.map((item) => cells(view, item))));
  if (page.nextCursor) process.stderr.write(`More: --cursor ${page.nextCursor}\n`);
}

/** One resource: its data in json/yaml, its id with --quiet, else a one-row table. */
export function printOne<T>(item: T, view: View<T>, options: OutputOptions): void {
  if (options.output !== 'table') return printData(item, options.output);
  if (options.quiet) return void process.stdout.write(`${view.id(item)}\n`);
  process.stdout.write(formatTable(view.columns.map(([h]) => h), [cells(view, item)]));
}

/** Anything else (a dry run, a runtime view): json/yaml as is; the table format shows it as YAML. */
export function printDocument(data: unknown, options: OutputOptions): void {
  printData(data, options.output === 'json' ? 'json' : 'yaml');
}

/** A line for a person (on stderr, so stdout stays the data a script reads). */
export function note(message: string, options: OutputOptions): void {
  if (!options.quiet) process.stderr.write(`${message}\n`);
}

/** How long ago an ISO timestamp was, as kubectl's AGE column shows it. */
export function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}
