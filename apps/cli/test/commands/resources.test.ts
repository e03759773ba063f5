import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld } from '../../../../test-support/cli-world.ts';
import type { SpyDiscovery } from '../../../../test-support/spy-discovery-driver.ts';

const json = (stdout: string) => JSON.parse(stdout);

describe('occ resource commands against a real HTTP controller', () => {
  let world: CliWorld;
  beforeAll(async () => {
    world = await startCliWorld();
  });
  afterAll(() => world.close());

  it('login: the key from stdin is checked, stored 0600 as the current context and never printed; a bad key changes nothing', async () => {
    const configFile = join(world.home, 'login.json');
    const env = { OCC_CONFIG: configFile };
    const bad = await world.occ(['login', '--server', world.server, '--name', 'here'], { stdin: 'occ_wrong_key\n', env });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('error: UNAUTHENTICATED');
    expect(() => statSync(configFile)).toThrow();
    const empty = await world.occ(['login', '--server', world.server], { stdin: '\n', env });
    expect([empty.code, empty.stderr]).toEqual([2, 'error: The API key is empty\n']);

    const good = await world.occ(['login', '--server', world.server, '--name', 'here', '-n', 'default'], { stdin: `${world.controller.adminKey}\n`, env });
    expect(good.code).toBe(0);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(json(readFileSync(configFile, 'utf8'))).toEqual({
      currentContext: 'here',
      contexts: { here: { server: world.server, apiKey: world.controller.adminKey, namespace: 'default' } },
    });
    expect(good.stdout + good.stderr).not.toContain(world.controller.adminKey);

    const contexts = await world.occ(['context', 'list'], { env });
    expect(contexts.stdout.split('\n')[1]).toMatch(/^\*\s+here\s+http:\/\/127\.0\.0\.1:\d+\s+default$/);
    expect(contexts.stdout).not.toContain(world.controller.adminKey);
    const yaml = await world.occ(['context', 'list', '-o', 'yaml'], { env });
    expect(yaml.stdout).toBe(`currentContext: here\ncontexts:\n  - name: here\n    server: ${world.server}\n    namespace: default\n    current: true\n`);
    expect((await world.occ(['context', 'use', 'elsewhere'], { env })).code).toBe(3);
  });

  it('a context key is never sent to another server, and a server that does not answer exits 7', async () => {
    // Another server named by --server gets no key from the context: the request is unauthenticated.
    const other = await world.occ(['--server', world.server.replace('127.0.0.1', 'localhost'), 'namespaces', 'list']);
    expect(other.code).toBe(4);
    expect(other.stderr).toContain('UNAUTHENTICATED');
    const down = await world.occ(['--server', 'http://127.0.0.1:9', 'namespaces', 'list'], { env: { OCC_API_KEY: 'x' } });
    expect(down.code).toBe(7);
    expect(down.stderr).toMatch(/^error: Cannot reach http:\/\/127\.0\.0\.1:9: /);
  });

  it('namespaces: create, list as a table, json, yaml and ids, get by name, 404 exits 3, delete', async () => {
    const created = await world.occ(['namespaces', 'create', 'team-a', '-o', 'json']);
    expect(created.code).toBe(0);
    const ns = json(created.stdout);
    expect(ns).toMatchObject({ name: 'team-a', id: expect.stringMatching(/^ns_/) });

    const table = await world.occ(['namespaces', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+ID\s+AGE$/);
    expect(table.stdout).toMatch(new RegExp(`team-a\\s+${ns.id}`));
    expect(json((await world.occ(['ns', 'list', '-o', 'json'])).stdout)).toEqual({ items: expect.arrayContaining([ns]), nextCursor: null });
    expect((await world.occ(['ns', 'list', '-o', 'yaml'])).stdout).toContain(`- id: ${ns.id}\n    name: team-a\n`);
    expect((await world.occ(['ns', 'list', '-q'])).stdout.trim().split('\n')).toContain(ns.id);
    expect(json((await world.occ(['namespaces', 'get', 'team-a', '-o', 'json'])).stdout)).toEqual(ns);

    const missing = await world.occ(['namespaces', 'get', 'nope']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe('error: NOT_FOUND: No Namespace named "nope"\n');
    const invalid = await world.occ(['namespaces', 'create', ' padded ']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^error: INVALID_REQUEST: .*\n {2}\/name: INVALID_FORMAT\n/);
    const deleted = await world.occ(['namespaces', 'delete', 'team-a']);
    expect(deleted.code).toBe(0);
    expect((await world.occ(['namespaces', 'get', ns.id])).code).toBe(3);
  });

  it("namespaces ssh-host: set names the key's Secret by name, get shows the host (never a key), a bad field names it, delete removes it and frees the Secret", async () => {
    const keyValue = '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-shown-anywhere\n-----END OPENSSH PRIVATE KEY-----';
    expect((await world.occ(['secrets', 'create', 'ssh-client-key'], { stdin: `${keyValue}\n` })).code).toBe(0);
    const hostKey = `SHA256:${'B'.repeat(43)}`;
    const set = await world.occ([
      'namespaces',
      'ssh-host',
      'set',
      'default',
      '--address',
      '10.0.0.5:2222',
      '--user',
      'occ-agents',
      '--host-key',
      hostKey,
      '--private-key-secret',
      'ssh-client-key',
      '-o',
      'json',
    ]);
    expect(set.code, set.stderr).toBe(0);
    const saved = json(set.stdout);
    expect(saved).toMatchObject({ address: '10.0.0.5:2222', user: 'occ-agents', hostKey, privateKeySecretId: expect.stringMatching(/^sec_/) });
    const table = await world.occ(['ns', 'ssh-host', 'get', 'default']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ADDRESS\s+USER\s+KEY SECRET\s+UPDATED$/);
    expect(table.stdout).toMatch(/10\.0\.0\.5:2222\s+occ-agents\s+sec_/);
    expect(set.stdout + table.stdout).not.toContain('not-shown-anywhere');
    const missingSecret = await world.occ(['ns', 'ssh-host', 'set', 'default', '--address', 'h', '--user', 'u', '--host-key', hostKey, '--private-key-secret', 'nope']);
    expect(missingSecret.code).toBe(3);
    const badField = await world.occ(['ns', 'ssh-host', 'set', 'default', '--address', '', '--user', 'u', '--host-key', hostKey, '--private-key-secret', 'ssh-client-key']);
    expect(badField.code).toBe(2);
    expect(badField.stderr).toMatch(/\/address: /);
    // The key Secret stays while the host names it, and deletes once the host is gone.
    expect((await world.occ(['secrets', 'delete', 'ssh-client-key'])).code).toBe(5);
    expect((await world.occ(['ns', 'ssh-host', 'delete', 'default'])).code).toBe(0);
    expect((await world.occ(['ns', 'ssh-host', 'get', 'default'])).code).toBe(3);
    expect((await world.occ(['secrets', 'delete', 'ssh-client-key'])).code).toBe(0);
  });

  it('secrets: the value comes from stdin, a file or a variable, never an argument, and is never printed', async () => {
    const canary = 'sk-canary-7f3a9c';
    const fromStdin = await world.occ(['secrets', 'create', 'model-key', '-o', 'json'], { stdin: `${canary}\n` });
    expect(fromStdin.code).toBe(0);
    expect(json(fromStdin.stdout)).toMatchObject({ name: 'model-key', version: 1 });
    const file = join(world.home, 'value.txt');
    writeFileSync(file, `${canary}-2`);
    const fromFile = await world.occ(['secrets', 'set', 'model-key', '--from-file', file, '-o', 'json']);
    expect(json(fromFile.stdout).version).toBe(2);
    const fromEnv = await world.occ(['secrets', 'create', 'other', '--from-env', 'MY_TOKEN'], { env: { MY_TOKEN: `${canary}-3` } });
    expect(fromEnv.code).toBe(0);
    const argv = await world.occ(['secrets', 'create', 'x', canary]);
    expect(argv.code).toBe(2);
    const both = await world.occ(['secrets', 'create', 'y', '--from-file', file, '--from-env', 'MY_TOKEN'], { env: { MY_TOKEN: 'v' } });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give the value one way');
    const everything = [fromStdin, fromFile, fromEnv, argv, both].map((r) => r.stdout + r.stderr).join('\n');
    expect(everything).not.toContain(canary);
    // The value stored is the one piped in, without the newline `echo` added.
    const names = (await world.occ(['secrets', 'list', '-q'])).stdout.trim().split('\n');
    expect(names).toHaveLength(2);
  });

  it('configurations: a YAML file binds Secrets by name; a bad document names the field', async () => {
    const file = join(world.home, 'base.yaml');
    writeFileSync(file, 'name: base\nvalues:\n  agents:\n    defaults:\n      model: scripted/m\nsecretBindings:\n  MODEL_API_KEY: { secret: model-key }\n');
    const created = await world.occ(['configurations', 'create', '-f', file, '-o', 'json']);
    expect(created.code).toBe(0);
    const secretId = json((await world.occ(['secrets', 'get', 'model-key', '-o', 'json'])).stdout).id;
    expect(json(created.stdout)).toMatchObject({
      name: 'base',
      generation: 1,
      values: { agents: { defaults: { model: 'scripted/m' } } },
      secretBindings: { MODEL_API_KEY: { secretId } },
    });

    writeFileSync(file, 'name: base\nvalues:\n  agents: {}\n');
    const applied = await world.occ(['configurations', 'apply', '-f', file, '-o', 'json']);
    expect(applied.stderr).toContain('Configuration base updated.');
    expect(json(applied.stdout)).toMatchObject({ generation: 2, values: { agents: {} } });

    writeFileSync(file, 'name: broken\nvalues: [1]\n');
    const broken = await world.occ(['configurations', 'create', '-f', file]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('  /values: INVALID_TYPE');
    writeFileSync(file, 'name: [unclosed\n');
    const unparsable = await world.occ(['configurations', 'create', '-f', file]);
    expect(unparsable.code).toBe(2);
    expect(unparsable.stderr).toContain('is not valid JSON or YAML');
  });

  it('configurations apply writes with If-Match on the generation it read: a change in between exits 5 and is kept', async () => {
    const file = join(world.home, 'racy.yaml');
    writeFileSync(file, 'name: racy\nvalues: { mine: 0 }\n');
    const created = json((await world.occ(['configurations', 'apply', '-f', file, '-o', 'json'])).stdout);
    expect(created.generation).toBe(1);
    const url = `/namespaces/${created.namespaceId}/configurations/${created.id}`;

    // Another editor saves right after apply has listed the Configurations (and read generation 1).
    const deps = world.controller.controller.deps;
    const state = deps.state;
    let interleaved = false;
    deps.state = Object.assign(Object.create(state) as typeof state, {
      read: async <T>(fn: Parameters<typeof state.read<T>>[0]): Promise<T> => {
        const result = await state.read(fn);
        const items = (result as { items?: { id?: string }[] } | undefined)?.items;
        if (!interleaved && Array.isArray(items) && items.some((c) => c.id === created.id)) {
          interleaved = true;
          expect((await world.controller.request({ method: 'PATCH', url, body: { values: { theirs: 1 } } })).status).toBe(200);
        }
        return result;
      },
    });
    try {
      writeFileSync(file, 'name: racy\nvalues: { mine: 1 }\n');
      const stale = await world.occ(['configurations', 'apply', '-f', file]);
      expect(interleaved).toBe(true);
      expect(stale.code).toBe(5);
      expect(stale.stderr).toContain('error: PRECONDITION_FAILED');
    } finally {
      deps.state = state;
    }
    expect((await world.controller.request({ method: 'GET', url })).body.data).toMatchObject({ generation: 2, values: { theirs: 1 } });

    // Run again: it reads generation 2 and writes.
    const again = await world.occ(['configurations', 'apply', '-f', file, '-o', 'json']);
    expect(again.code).toBe(0);
    expect(json(again.stdout)).toMatchObject({ generation: 3, values: { mine: 1 } });
  });

  it('agents: create with plugins, edit tools and enablement with If-Match, apply a document, delete', async () => {
    const created = await world.occ(['agents', 'create', 'bot', '--configuration', 'base', '--plugin', 'openclaw:file-transfer', '-o', 'json']);
    expect(created.code).toBe(0);
    const agent = json(created.stdout);
    expect(agent.plugins).toEqual({ 'openclaw:file-transfer': { enabled: true } });

    const edited = await world.occ(['agents', 'edit', 'bot', '--plugin', 'openclaw:file-transfer', '--tool', 'file_write=off', '--tool-default', 'on', '-o', 'json']);
    expect(edited.code).toBe(0);
    expect(json(edited.stdout)).toMatchObject({
      version: 2,
      plugins: { 'openclaw:file-transfer': { enabled: true, toolDefaults: { enabled: true }, tools: { file_write: { enabled: false } } } },
    });
    const disabled = await world.occ(['agents', 'edit', 'bot', '--plugin', 'openclaw:file-transfer', '--disable', '-o', 'json']);
    expect(json(disabled.stdout).plugins['openclaw:file-transfer']).toMatchObject({ enabled: false, tools: { file_write: { enabled: false } } });
    const twoPluginsOneTool = await world.occ(['agents', 'edit', 'bot', '--plugin', 'a', '--plugin', 'b', '--tool', 't=off']);
    expect(twoPluginsOneTool.code).toBe(2);
    expect((await world.occ(['agents', 'edit', 'bot', '--enable', '--disable'])).code).toBe(2);

    const doc = join(world.home, 'bot.yaml');
    writeFileSync(doc, 'name: bot2\nharness: openclaw\nconfiguration: base\nplugins:\n  openclaw:webhooks: { enabled: true }\n');
    const first = await world.occ(['agents', 'apply', '-f', doc, '-o', 'json']);
    expect(first.stderr).toContain('Agent bot2 created.');
    writeFileSync(doc, 'name: bot2\nconfiguration: base\nplugins: {}\n');
    const second = await world.occ(['agents', 'apply', '-f', doc, '-o', 'json']);
    expect(second.stderr).toContain('Agent bot2 updated.');
    expect(json(second.stdout)).toMatchObject({ version: 2, plugins: {} });

    const table = await world.occ(['agents', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+ID\s+HARNESS\s+DESIRED\s+PLUGINS\s+ACTIVE REVISION\s+AGE$/);
    expect(table.stdout).toMatch(/bot\s+agt_\S+\s+openclaw\s+stopped\s+-\s+-/);
    expect((await world.occ(['agents', 'capabilities', 'bot', '-o', 'json'])).code).toBe(0);
    expect((await world.occ(['agents', 'delete', 'bot2'])).code).toBe(0);
    expect((await world.occ(['agents', 'get', 'bot2'])).code).toBe(3);
  });

  it('plugins: search pages and show --tools; a Secret is the credential and its value reaches discovery only', async () => {
    const page = await world.occ(['plugins', 'search']);
    expect(
      page.stdout
        .split('\n')
        .slice(0, 3)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['KEY', 'diffs', 'linear']);
    expect(page.stderr).toMatch(/More: --cursor spy:2:/);
    const cursor = /--cursor (\S+)/.exec(page.stderr)![1]!;
    expect(json((await world.occ(['plugins', 'search', '--cursor', cursor, '-o', 'json'])).stdout).plugins.map((p: { id: string }) => p.id)).toEqual(['github', 'legacy']);
    const tools = await world.occ(['plugins', 'show', 'plugin_linear', '--tools']);
    expect(tools.stdout).toMatch(/TOOL\s+NAME\s+AVAILABLE\s+WRITES\nlinear\.search\s+Search issues\s+yes\s+\?/);

    const codex = world.controller.controller.deps.pluginDrivers.codex!.discovery as SpyDiscovery;
    const search = await world.occ(['plugins', 'search', 'lin', '--harness', 'codex', '--secret', 'other', '-o', 'json']);
    expect(search.code).toBe(0);
    expect(json(search.stdout).plugins.map((p: { id: string }) => p.id)).toEqual(['linear']);
    expect(codex.calls.at(-1)!.request.credential).toBe('sk-canary-7f3a9c-3');
    expect(search.stdout + search.stderr).not.toContain('sk-canary');
  });

  it('help shows an example on every command, and bash completion completes commands and flags', async () => {
    const help = await world.occ(['agents', 'edit', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:\n  occ agents edit support-bot --plugin');
    const script = (await world.occ(['completion', 'bash'])).stdout;
    const complete = (words: string[]) =>
      spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _occ; echo "\${COMPREPLY[@]}"`], {
        encoding: 'utf8',
      }).stdout.trim();
    expect(complete(['occ', 'dep'])).toBe('deploy');
    expect(complete(['occ', '-n', 'x', 'agents', 'ed'])).toBe('edit');
    expect(complete(['occ', 'agents', 'edit', 'bot', '--tool-d'])).toBe('--tool-default');
    expect((await world.occ(['completion', 'tcsh'])).code).toBe(2);
    // The bundle npm ci builds and the TypeScript sources are the same program.
    const fromSource = await world.occ(['completion', 'bash'], { env: { OCC_CLI_FROM_SOURCE: '1' } });
    expect(fromSource.stdout).toBe(script);
    expect((await world.occ(['no-such-command'])).code).toBe(2);
  });
});
