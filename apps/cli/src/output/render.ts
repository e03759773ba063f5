import Table from 'cli-table3';
import { stringify } from 'yaml';
import { CliError, EXIT } from '../exit-codes.ts';
import { parseJsonPath, renderJsonPath } from './jsonpath.ts';
import { isDataFormat, type OutputFormat } from './output-format.ts';

type Column<T> = readonly [header: string, cell: (item: T) => string | number | null | undefined];

/** How a resource shows: its table columns, the id `--quiet` prints and the `kind/name` of `-o name`. */
export interface View<T> {
  /** What `-o name` prints before the slash, as kubectl does: `agent/support-bot`. */
  kind: string;
  columns: ReadonlyArray<Column<T>>;
  /** The columns `-o wide` adds after the others, where there is more worth a glance. */
  wide?: ReadonlyArray<Column<T>>;
  id: (item: T) => string;
  /** What `-o name` prints after the slash: the name a person types. Default: the id. */
  name?: (item: T) => string;
}

export interface OutputOptions {
  output: OutputFormat;
  quiet?: boolean;
}

/** Machine formats print the API's `data` unchanged (a JSONPath template picks from it). */
function printData(data: unknown, output: OutputFormat): void {
  if (output.startsWith('jsonpath=')) return void process.stdout.write(`${renderJsonPath(parseJsonPath(output.slice('jsonpath='.length)), data)}\n`);
  process.stdout.write(output === 'yaml' ? stringify(data) : `${JSON.stringify(data, null, 2)}\n`);
}

/** `kind/name`, one resource per line (`-o name`). */
function nameLine<T>(view: View<T>, item: T): string {
  return `${view.kind}/${(view.name ?? view.id)(item)}`;
}

/** A borderless, aligned table (the kubectl look): headers in capitals, two spaces between columns. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string>>): string {
  const table = new Table({
    head: headers.map((h) => h.toUpperCase()),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    wordWrap: false,
  });
  table.push(...rows.map((row) => [...row]));
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}

/** The view's columns, and with `-o wide` its extra ones. */
function columnsOf<T>(view: View<T>, output: OutputFormat): ReadonlyArray<Column<T>> {
  return output === 'wide' && view.wide ? [...view.columns, ...view.wide] : view.columns;
}

function cells<T>(columns: ReadonlyArray<Column<T>>, item: T): string[] {
  return columns.map(([, cell]) => {
    const value = cell(item);
    return value === null || value === undefined || value === '' ? '-' : String(value);
  });
}

/** Rows of a view as a table on stdout (`wide`: with its extra columns). */
export function printTable<T>(items: readonly T[], view: View<T>, output: OutputFormat): void {
  const columns = columnsOf(view, output);
  process.stdout.write(
    formatTable(
      columns.map(([h]) => h),
      items.map((item) => cells(columns, item)),
    ),
  );
}

/**
 * A list: the full page shape `{ items, nextCursor }` as data (json, yaml, jsonpath), `kind/name`
 * lines with `-o name`, ids with --quiet, else a table (wide: with its extra columns).
 */
export function printList<T>(page: { items: T[]; nextCursor: string | null }, view: View<T>, options: OutputOptions): void {
  if (isDataFormat(options.output)) return printData(page, options.output);
  if (options.output === 'name') return page.items.forEach((item) => void process.stdout.write(`${nameLine(view, item)}\n`));
  if (options.quiet) {
    for (const item of page.items) process.stdout.write(`${view.id(item)}\n`);
    return;
  }
  if (page.items.length === 0) {
    process.stderr.write('No resources found.\n');
    return;
  }
  printTable(page.items, view, options.output);
  if (page.nextCursor) process.stderr.write(`More: --cursor ${page.nextCursor}\n`);
}

/** One resource: its data (json, yaml, jsonpath), its `kind/name`, its id with --quiet, else a one-row table. */
export function printOne<T>(item: T, view: View<T>, options: OutputOptions): void {
  if (isDataFormat(options.output)) return printData(item, options.output);
  if (options.output === 'name') return void process.stdout.write(`${nameLine(view, item)}\n`);
  if (options.quiet) return void process.stdout.write(`${view.id(item)}\n`);
  printTable([item], view, options.output);
}

/** `-o name` asked of a command whose answer is no resource with a name (`why`: what it is instead). */
export function noNames(why: string): CliError {
  return new CliError(`-o name prints kind/name of resources; ${why}: use -o json, yaml or jsonpath=TEMPLATE`, EXIT.USAGE);
}

/** Anything else (a dry run, a runtime view): as data (json, yaml, jsonpath); for people as YAML. */
export function printDocument(data: unknown, options: OutputOptions): void {
  if (options.output === 'name') throw noNames('this answer is a document');
  printData(data, isDataFormat(options.output) ? options.output : 'yaml');
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
