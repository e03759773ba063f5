import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld } from '../../../../test-support/cli-world.ts';

const json = (stdout: string) => JSON.parse(stdout);

/**
 * What the scripted editor does on its Nth run (the last step repeats): rewrite part of the file,
 * write a whole text, change the Agent through the API first (another person's edit), or nothing.
 */
type Step = { replace: [string, string] } | { write: string } | { patch: { url: string; key: string; body: unknown }; andThen: Step } | 'save-unchanged';

/**
 * A stand-in for vi: a node script set as EDITOR. Each run logs what it was given (the path, the
 * file's mode and text) to EDIT_LOG, then does its step from EDIT_STEPS.
 */
const EDITOR_SCRIPT = `
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
const path = process.argv[2];
const text = readFileSync(path, 'utf8');
const runs = readFileSync(process.env.EDIT_LOG, 'utf8').split('\\n').filter(Boolean).length;
appendFileSync(process.env.EDIT_LOG, JSON.stringify({ path, mode: statSync(path).mode & 0o777, text }) + '\\n');
const steps = JSON.parse(process.env.EDIT_STEPS);
async function run(step) {
  if (step === 'save-unchanged') return;
  if (step.replace) {
    if (!text.includes(step.replace[0])) throw new Error('not in the file: ' + step.replace[0]);
    return writeFileSync(path, text.replace(step.replace[0], step.replace[1]));
  }
  if (step.write !== undefined) return writeFileSync(path, step.write);
  const answer = await fetch(step.patch.url, {
    method: 'PATCH',
    headers: { authorization: 'Bearer ' + step.patch.key, 'content-type': 'application/json' },
    body: JSON.stringify(step.patch.body),
  });
  if (!answer.ok) throw new Error('the concurrent PATCH failed: ' + answer.status);
  return run(step.andThen);
}
await run(steps[Math.min(runs, steps.length - 1)]);
`;

const HEADER = (id: string, version: number) =>
  [
    `# occ agents edit: agent/bot (${id}) at version ${version}.`,
    '# Save and quit to update it; quit without saving, save it unchanged or empty it to change nothing.',
    `# It is sent with If-Match: version ${version}: if the Agent changes meanwhile, nothing is written and this file is kept.`,
    '# As occ agents apply -f: a field you leave out keeps its value (clear with plugins: {} or pluginApprovers: null);',
    '# configuration and codexPat are names (configurationId and harnessAuth take ids); the harness cannot change.',
    '# Lines starting with # are ignored. Saving does not deploy: run occ deploy bot afterwards.',
    '',
  ].join('\n');

describe('occ agents edit in $EDITOR against a real HTTP controller', () => {
  let world: CliWorld;
  let editorScript: string;
  let agentUrl: string;
  let agentId: string;
  let run = 0;
  const get = async (url: string) => (await world.controller.request({ method: 'GET', url })).body.data;
  const auditCount = async () => (await get('/audit-events?limit=200')).items.length;

  /** `occ agents edit bot …` with the scripted editor doing `steps`; answers the run and what the editor saw. */
  async function edit(steps: Step[], args: string[] = []) {
    const log = join(world.home, `edit-${++run}.log`);
    writeFileSync(log, '');
    const result = await world.occ(['agents', 'edit', 'bot', ...args], {
      env: { EDITOR: `'${process.execPath}' '${editorScript}'`, EDIT_LOG: log, EDIT_STEPS: JSON.stringify(steps) },
    });
    const seen = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { path: string; mode: number; text: string });
    return { ...result, seen };
  }

  beforeAll(async () => {
    world = await startCliWorld();
    editorScript = join(world.home, 'scripted-editor.mjs');
    writeFileSync(editorScript, EDITOR_SCRIPT);
    const config = join(world.home, 'base.yaml');
    writeFileSync(config, 'name: base\nvalues:\n  agents:\n    defaults:\n      model: scripted/m\n');
    expect((await world.occ(['configurations', 'create', '-f', config])).code).toBe(0);
    const created = await world.occ(['agents', 'create', 'bot', '--configuration', 'base', '--plugin', 'openclaw:llm-task', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const agent = json(created.stdout);
    agentId = agent.id;
    agentUrl = `/namespaces/${agent.namespaceId}/agents/${agent.id}`;
  });
  afterAll(() => world?.close());

  it('an unchanged file: "Edit cancelled, no changes made.", nothing sent, the file removed; no editor and no terminal: a usage error', async () => {
    const audited = await auditCount();
    const before = await get(agentUrl);
    // Saved as it came, then saved with only a comment added: neither changes the document.
    for (const step of ['save-unchanged', { replace: ['kind: Agent', '# looked, changed my mind\nkind: Agent'] }] as Step[]) {
      const result = await edit([step]);
      expect([result.code, result.stdout, result.stderr]).toEqual([0, '', 'Edit cancelled, no changes made.\n']);
      expect(result.seen).toHaveLength(1);
      expect(existsSync(dirname(result.seen[0]!.path))).toBe(false);
    }
    // Emptied: as kubectl, an empty file changes nothing.
    expect((await edit([{ write: '' }])).stderr).toBe('Edit cancelled, no changes made.\n');
    expect(await get(agentUrl)).toEqual(before);
    expect(await auditCount()).toBe(audited);

    const noEditor = await world.occ(['agents', 'edit', 'bot']);
    expect([noEditor.code, noEditor.stderr]).toEqual([
      2,
      'error: occ agents edit without edit flags opens $VISUAL or $EDITOR (else vi) on a terminal: set EDITOR, or pass edit flags (--plugin …)\n',
    ]);
  });

  it('saved with a change: the Agent document in a private file, one PATCH of what changed with If-Match, the server has the edit', async () => {
    const audited = await auditCount();
    const result = await edit([{ replace: ['    enabled: true\n', '    enabled: false\n  openclaw:webhooks:\n    enabled: true\npluginApprovers: []\n'] }], ['-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('Agent bot updated (version 2); run occ deploy bot to run it.\n');
    // What the editor was given: the header, then the document occ agents apply -f takes (names, not ids).
    const [opened] = result.seen;
    expect(opened!.text).toBe(`${HEADER(agentId, 1)}kind: Agent\nname: bot\nharness: openclaw\nconfiguration: base\nplugins:\n  openclaw:llm-task:\n    enabled: true\n`);
    expect(opened!.mode).toBe(0o600);
    expect(opened!.path).toMatch(/\/occ-edit-[^/]+\/bot\.yaml$/);
    expect(existsSync(dirname(opened!.path))).toBe(false);

    const expected = { version: 2, plugins: { 'openclaw:llm-task': { enabled: false }, 'openclaw:webhooks': { enabled: true } }, pluginApprovers: [] };
    expect(json(result.stdout)).toMatchObject(expected);
    expect(await get(agentUrl)).toMatchObject(expected);
    // One update, of the fields that changed.
    const events = (await get('/audit-events?limit=200')).items;
    expect(events.length).toBe(audited + 1);
    expect(events[0]).toMatchObject({ action: 'agents.update', details: { changed: ['pluginApprovers', 'plugins'] } });
  });

  it('changed by someone else while the file was open: 412, nothing written, the edit kept for occ agents apply -f, exit 5', async () => {
    const before = await get(agentUrl);
    const theirs = { plugins: { ...before.plugins, 'openclaw:file-transfer': { enabled: true } } };
    const result = await edit([
      {
        patch: { url: `${world.server}${agentUrl}`, key: world.controller.adminKey, body: theirs },
        andThen: { replace: ['pluginApprovers: []', 'pluginApprovers: null'] },
      },
    ]);
    const kept = result.seen[0]!.path;
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: PRECONDITION_FAILED: The Agent changed since it was read \\(If-Match does not match its ETag\\)\\.\\n  \\(request req_\\S+\\)\\n${escapeRegExp(
          `Agent bot changed since it was read (version ${before.version}, now version ${before.version + 1}): nothing was written.\nYour edit is kept in ${kept}: run occ agents edit bot again and redo it, or write it over the new version with occ agents apply -f ${kept}.\n`,
        )}$`,
      ),
    );
    // The other person's change stands; the edit is in the kept file, still private.
    expect(await get(agentUrl)).toMatchObject({ version: before.version + 1, plugins: theirs.plugins, pluginApprovers: [] });
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    expect(readFileSync(kept, 'utf8')).toContain('\npluginApprovers: null\n');

    // The kept file is a document apply takes: written over the new version on purpose.
    const applied = await world.occ(['agents', 'apply', '-f', kept, '-o', 'json']);
    expect([applied.code, applied.stderr]).toEqual([0, 'Agent bot updated.\n']);
    expect(json(applied.stdout)).toMatchObject({ version: before.version + 2, pluginApprovers: null, plugins: before.plugins });
    rmSync(dirname(kept), { recursive: true, force: true });
  });

  it('a file that is not YAML, or that the API refuses: the editor reopens with the error on top; saved unchanged again: given up, file kept, exit 2', async () => {
    const before = await get(agentUrl);
    const invalid = 'kind: Agent\nname: bot\nconfiguration: base: x\n';
    // Invalid YAML, then (reopened) a real change.
    const fixed = await edit([{ write: invalid }, { write: 'kind: Agent\nname: bot\nplugins: {}\n' }]);
    expect(fixed.code, fixed.stderr).toBe(0);
    const path = fixed.seen[0]!.path;
    const yamlError = [
      `error: ${path} is not valid JSON or YAML: line 3, column 16: Nested mappings are not allowed in compact mappings`,
      '  configuration: base: x',
      '                 ^',
    ].join('\n');
    expect(fixed.stderr).toBe(
      `${yamlError}\nReopening the editor: fix the file, or save it unchanged to give up.\nAgent bot updated (version ${before.version + 1}); run occ deploy bot to run it.\n`,
    );
    expect(fixed.seen).toHaveLength(2);
    expect(fixed.seen[1]!.text).toBe(
      [
        '# The Agent was not saved: fix the file and save it again, or save it unchanged to give up (the file is then kept).',
        ...yamlError.split('\n').map((line) => `#   ${line}`),
        '#',
        invalid,
      ].join('\n'),
    );
    expect(await get(agentUrl)).toMatchObject({ version: before.version + 1, plugins: {} });
    expect(existsSync(dirname(path))).toBe(false);

    // Saved with the error again, unchanged: given up, nothing sent, the file kept.
    const givenUp = await edit([{ write: invalid }, 'save-unchanged']);
    const keptPath = givenUp.seen[0]!.path;
    expect(givenUp.code).toBe(2);
    expect(givenUp.stderr).toBe(
      `${yamlError.replace(path, keptPath)}\nReopening the editor: fix the file, or save it unchanged to give up.\n${yamlError.replace(path, keptPath)}\nEdit cancelled: the file was saved with the error above. Your edit is kept in ${keptPath}.\n`,
    );
    expect(readFileSync(keptPath, 'utf8')).toContain(invalid);
    rmSync(dirname(keptPath), { recursive: true, force: true });

    // A plugin the catalog does not offer: the API's 400 in the reopened file; put back as it was, nothing changes.
    const refused = await edit([
      { replace: ['\nplugins: {}\n', '\nplugins:\n  openclaw:@openclaw/does-not-exist-xyz: { enabled: true }\n'] },
      { write: 'kind: Agent\nname: bot\nplugins: {}\n' },
    ]);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toMatch(
      /^error: INVALID_REQUEST: The plugin catalog does not offer the selected plugin\.\n {2}\/plugins\/openclaw:@openclaw\/does-not-exist-xyz: UNSUPPORTED_VALUE\n {2}\(request req_\S+\)\nReopening the editor: fix the file, or save it unchanged to give up\.\nEdit cancelled, no changes made\.\n$/,
    );
    expect(refused.seen[1]!.text).toMatch(/^# The Agent was not saved: .*\n# {3}error: INVALID_REQUEST: The plugin catalog does not offer the selected plugin\.\n/);
    expect((await get(agentUrl)).version).toBe(before.version + 1);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
