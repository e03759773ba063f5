import { InvalidArgumentError } from 'commander';
import { JsonPathError, parseJsonPath } from './jsonpath.ts';

/**
 * What `-o` asks for. `table` and `wide` are for people (wide adds columns); `name` prints
 * `kind/name` per resource, as kubectl; `json`, `yaml` and `jsonpath=TEMPLATE` print the API's data.
 */
export type OutputFormat = 'table' | 'wide' | 'name' | 'json' | 'yaml' | `jsonpath=${string}`;

const PLAIN = ['table', 'wide', 'name', 'json', 'yaml'] as const;

export const OUTPUT_FORMAT_HELP = "table, wide (more columns), name (kind/name), or the API's data as json, yaml or jsonpath=TEMPLATE (e.g. jsonpath={.items[*].name})";

/** The words shell completion offers after `-o`. */
export const OUTPUT_FORMAT_WORDS = [...PLAIN, 'jsonpath='] as const;

/** Commander's parser for `-o`: a template is checked here, so a bad one is a usage error before any request. */
export function parseOutputFormat(value: string): OutputFormat {
  if ((PLAIN as readonly string[]).includes(value)) return value as OutputFormat;
  if (value.startsWith('jsonpath=')) {
    try {
      parseJsonPath(value.slice('jsonpath='.length));
    } catch (error) {
      if (error instanceof JsonPathError) throw new InvalidArgumentError(`jsonpath: ${error.message}`);
      throw error;
    }
    return value as OutputFormat;
  }
  throw new InvalidArgumentError(`one of ${PLAIN.join(', ')} or jsonpath=TEMPLATE`);
}

/** A table for people (`table` or `wide`). */
export function isTableFormat(output: OutputFormat): output is 'table' | 'wide' {
  return output === 'table' || output === 'wide';
}

/** One of the formats that print the API's data as it is (json, yaml, a JSONPath template over it). */
export function isDataFormat(output: OutputFormat): boolean {
  return output === 'json' || output === 'yaml' || output.startsWith('jsonpath=');
}
