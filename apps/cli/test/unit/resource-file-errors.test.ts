import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, EXIT } from '../../src/exit-codes.ts';
import { readResourceFile } from '../../src/input/read-input.ts';

const dir = mkdtempSync(join(tmpdir(), 'occ-yaml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function refusal(name: string, text: string): Promise<CliError> {
  const path = join(dir, name);
  writeFileSync(path, text);
  const error = await readResourceFile(path).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  expect((error as CliError).exitCode).toBe(EXIT.USAGE);
  return error as CliError;
}

describe('-f FILE that is not a document', () => {
  it('malformed YAML: the whole message, its line and column, and a code frame with a caret', async () => {
    const error = await refusal('bot.yaml', 'name: bot\nplugins:\n  a: b: c\n');
    expect(error.message).toBe(
      [`${join(dir, 'bot.yaml')} is not valid JSON or YAML: line 3, column 6: Nested mappings are not allowed in compact mappings`, '    a: b: c', '       ^'].join('\n'),
    );
  });

  it('malformed JSON reads the same way', async () => {
    const error = await refusal('bot.json', '{"name": "bot",, "harness": "openclaw"}');
    expect(error.message).toBe(
      [`${join(dir, 'bot.json')} is not valid JSON or YAML: line 1, column 16: Unexpected , in flow map`, '  {"name": "bot",, "harness": "openclaw"}', '                 ^'].join(
        '\n',
      ),
    );
  });

  it('a document that is not one mapping is still refused as such', async () => {
    expect((await refusal('list.yaml', '- a\n- b\n')).message).toBe(`${join(dir, 'list.yaml')} must hold one object (a mapping)`);
  });
});
