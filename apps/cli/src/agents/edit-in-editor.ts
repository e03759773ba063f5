import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Agent, UpdateAgentBody } from '@occ/contracts';
import { ApiError, type ApiClient } from '@occ/contracts/client';
import type { CommandContext } from '../command-context.ts';
import { configurationId, secretId } from '../context/resolve.ts';
import { CliError, describeError, EXIT, exitCodeOf } from '../exit-codes.ts';
import { chosenEditor, runEditor } from '../input/editor.ts';
import { readResourceFile } from '../input/read-input.ts';
import { pick } from '../manifests/document-fields.ts';
import { sameJson } from '../manifests/same-json.ts';
import { note } from '../output/render.ts';
import { AGENT_DOCUMENT_FIELDS, AGENT_DOCUMENT_NAMES, agentDocument, resolveAgentDocument } from './agent-document.ts';

/** What `occ agents edit AGENT` (no edit flags) says when the file comes back equal to what it read. */
const EDIT_CANCELLED = 'Edit cancelled, no changes made.';

/** The first line of the block a reopened file starts with: why the last save was not sent. */
const ERROR_BLOCK = '# The Agent was not saved: fix the file and save it again, or save it unchanged to give up (the file is then kept).';

/** The text that counts: without whole-line comments (the headers, the error block) and surrounding blank space. */
const content = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n')
    .trim();

/** The editor's file name: the Agent's name where it is a plain one (the editor shows it; `.yaml` gives highlighting). */
const fileName = (name: string) => `${name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'agent'}.yaml`;

function header(agent: Agent): string {
  return [
    `# occ agents edit: agent/${agent.name} (${agent.id}) at version ${agent.version}.`,
    '# Save and quit to update it; quit without saving, save it unchanged or empty it to change nothing.',
    `# It is sent with If-Match: version ${agent.version}: if the Agent changes meanwhile, nothing is written and this file is kept.`,
    '# As occ agents apply -f: a field you leave out keeps its value (clear with plugins: {} or pluginApprovers: null);',
    '# configuration and codexPat are names (configurationId and harnessAuth take ids); the harness cannot change.',
    `# Lines starting with # are ignored. Saving does not deploy: run occ deploy ${agent.name} afterwards.`,
    '',
  ].join('\n');
}

/** The text the editor reopens with: the error on top (as comment lines), then the file as it was saved. */
function withError(text: string, error: string): string {
  const lines = text.split('\n');
  // A previous error block goes: it ends at its lone `#`.
  const saved = lines[0] === ERROR_BLOCK ? lines.slice(lines.indexOf('#') + 1) : lines;
  return [ERROR_BLOCK, ...error.split('\n').map((line) => `#   ${line}`), '#', ...saved].join('\n');
}

/** Names for the document where the caller may read them; the id otherwise. */
function referenceNames(client: ApiClient, ns: string) {
  const nameOf = async (read: () => Promise<{ data: { name: string } }>) => {
    try {
      return (await read()).data.name;
    } catch (error) {
      if (error instanceof ApiError) return undefined;
      throw error;
    }
  };
  return {
    configurationName: (id: string) => nameOf(() => client.call('getConfiguration', { params: { ns, id } })),
    secretName: (id: string) => nameOf(() => client.call('getSecret', { params: { ns, id } })),
  };
}

/**
 * The update an edited document asks for: only the fields that differ from the Agent as read
 * (empty: nothing to send). The document is checked as `occ agents apply -f` checks it — an
 * Agent, no unknown field, the same harness — and its names are resolved to ids.
 */
async function plannedUpdate(client: ApiClient, ns: string, agent: Agent, document: Record<string, unknown>): Promise<Partial<UpdateAgentBody>> {
  const { kind, ...fields } = document;
  if (kind !== undefined && (typeof kind !== 'string' || kind.toLowerCase() !== 'agent'))
    throw new CliError(`kind is ${JSON.stringify(kind)}: this file edits an Agent`, EXIT.USAGE);
  const allowed: readonly string[] = [...AGENT_DOCUMENT_FIELDS, ...AGENT_DOCUMENT_NAMES];
  const unknown = Object.keys(fields).filter((field) => !allowed.includes(field));
  if (unknown.length > 0) throw new CliError(`An Agent has no field ${unknown.join(', ')} (it has ${allowed.join(', ')})`, EXIT.USAGE);
  if (fields.harness !== undefined && fields.harness !== agent.harness) throw new CliError(`An Agent's harness cannot change (it is ${agent.harness})`, EXIT.USAGE);
  const { harness: _harness, ...body } = await resolveAgentDocument(fields, {
    configurationId: (name) => configurationId(client, ns, name),
    secretId: (name) => secretId(client, ns, name),
  });
  const live = pick(agent, AGENT_DOCUMENT_FIELDS);
  return Object.fromEntries(Object.entries(body).filter(([field, value]) => !sameJson(value, live[field])));
}

/** What a conflict tells the person: what happened, where their edit is, and the two ways on. */
async function conflictNote(client: ApiClient, ns: string, agent: Agent, edited: string | undefined, path: string): Promise<string> {
  let now = '';
  try {
    now = `, now version ${(await client.call('getAgent', { params: { ns, id: agent.id } })).data.version}`;
  } catch {
    // Only for the message: the conflict is the news.
  }
  const apply = edited === agent.name ? `, or write it over the new version with occ agents apply -f ${path}` : '';
  return [
    `Agent ${agent.name} changed since it was read (version ${agent.version}${now}): nothing was written.`,
    `Your edit is kept in ${path}: run occ agents edit ${agent.name} again and redo it${apply}.`,
  ].join('\n');
}

/**
 * `occ agents edit AGENT` with no edit flags, as `kubectl edit`: the Agent's document (the shape
 * `occ agents apply -f` takes) in a private temporary file (directory 0700, file 0600), opened
 * in `$VISUAL`/`$EDITOR` (vi), and on save one PATCH of the fields that changed with If-Match on
 * the version read.
 *
 * - Unchanged (only comments or spacing changed, or emptied): EDIT_CANCELLED, no request, exit 0.
 * - A file that is not YAML, a document the CLI refuses (unknown field, another harness, a name
 *   that matches nothing) or a 400 from the API: the editor reopens with the error as comment
 *   lines on top; saving it unchanged gives up (exit 2) and keeps the file.
 * - A 412 (the Agent changed meanwhile) or any other error: nothing is written, the file is kept
 *   and its path printed, and occ exits with the error's code (5 for a conflict).
 * The file is removed unless it is kept.
 */
export async function editAgentInEditor(context: CommandContext, resolveId: (ns: string) => Promise<string>): Promise<{ updated: Agent } | { exit: number }> {
  const { connection, options } = context;
  if (!chosenEditor().chosen && !process.stdin.isTTY) {
    throw new CliError('occ agents edit without edit flags opens $VISUAL or $EDITOR (else vi) on a terminal: set EDITOR, or pass edit flags (--plugin …)', EXIT.USAGE);
  }
  const client = connection.client;
  const ns = await context.namespace();
  const id = await resolveId(ns);
  const read = await client.call('getAgent', { params: { ns, id } });
  const agent = read.data;
  const ifMatch = read.etag ?? `"${agent.version}"`;
  const original = await agentDocument(agent, referenceNames(client, ns));
  const directory = mkdtempSync(join(tmpdir(), 'occ-edit-'));
  const path = join(directory, fileName(agent.name));
  let keep = false;
  const kept = (message: string, exit: number) => {
    keep = true;
    process.stderr.write(`${message}\n`);
    return { exit };
  };
  try {
    let presented = `${header(agent)}${stringify(original)}`;
    writeFileSync(path, presented, { mode: 0o600, flag: 'wx' });
    // Why the file was reopened (its message and exit code), while it is.
    let failure: { message: string; exit: number } | undefined;
    for (;;) {
      try {
        await runEditor(path);
      } catch (error) {
        if (content(readFileSync(path, 'utf8')) === content(presented)) throw error;
        return kept(`${describeError(error)}\nNothing was sent. Your edit is kept in ${path}.`, exitCodeOf(error));
      }
      const text = readFileSync(path, 'utf8');
      if (content(text) === content(presented) && failure) {
        return kept(`${failure.message}\nEdit cancelled: the file was saved with the error above. Your edit is kept in ${path}.`, failure.exit);
      }
      const reopen = (error: unknown) => {
        failure = { message: describeError(error), exit: exitCodeOf(error) };
        process.stderr.write(`${failure.message}\nReopening the editor: fix the file, or save it unchanged to give up.\n`);
        presented = withError(text, failure.message);
        writeFileSync(path, presented);
      };
      if (content(text) === '') {
        note(EDIT_CANCELLED, options);
        return { exit: EXIT.OK };
      }
      let document: Record<string, unknown>;
      let body: Partial<UpdateAgentBody>;
      try {
        document = await readResourceFile(path);
        if (sameJson(document, original)) {
          note(EDIT_CANCELLED, options);
          return { exit: EXIT.OK };
        }
        body = await plannedUpdate(client, ns, agent, document);
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        reopen(error);
        continue;
      }
      if (Object.keys(body).length === 0) {
        note(EDIT_CANCELLED, options);
        return { exit: EXIT.OK };
      }
      try {
        return { updated: (await client.call('updateAgent', { params: { ns, id }, body: body as UpdateAgentBody, ifMatch })).data };
      } catch (error) {
        if (error instanceof ApiError && error.status === 400) {
          reopen(error);
          continue;
        }
        if (error instanceof ApiError && error.status === 412) {
          const name = typeof document.name === 'string' ? document.name : agent.name;
          return kept(`${describeError(error)}\n${await conflictNote(client, ns, agent, name, path)}`, EXIT.CONFLICT);
        }
        return kept(`${describeError(error)}\nNothing was written. Your edit is kept in ${path}.`, exitCodeOf(error));
      }
    }
  } finally {
    if (!keep) rmSync(directory, { recursive: true, force: true });
  }
}
