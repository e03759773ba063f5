import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld } from '../../../../test-support/cli-world.ts';

const json = (stdout: string) => JSON.parse(stdout);

/** A directory of manifests: every kind apply knows, split over files as a team would keep them. */
function writeTeamDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '00-namespace.yaml'), 'kind: Namespace\nname: team-apply\n');
  writeFileSync(join(dir, 'secret.yaml'), 'kind: Secret\nname: model-key\nnamespace: team-apply\nfromEnv: MODEL_KEY\n');
  // Two documents in one file; the Agent names its Configuration, which names its Secret.
  writeFileSync(
    join(dir, 'bot.yaml'),
    [
      'kind: Configuration',
      'name: base',
      'namespace: team-apply',
      'values:',
      '  gateway:',
      '    port: 18789',
      '  agents:',
      '    defaults:',
      '      model: scripted/m',
      'secretBindings:',
      '  MODEL_API_KEY: { secret: model-key }',
      '---',
      'kind: Agent',
      'name: bot',
      'namespace: team-apply',
      'harness: openclaw',
      'configuration: base',
      'plugins:',
      '  openclaw:llm-task:',
      '    enabled: true',
      '---',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'role.json'),
    JSON.stringify({
      kind: 'Role',
      name: 'apply-reader',
      permissions: [
        { action: 'read', resourceKind: 'namespace' },
        { action: 'read', resourceKind: 'agent' },
      ],
    }),
  );
  writeFileSync(join(dir, 'binding.yml'), 'kind: AccessBinding\nprincipal: apply-ci\nrole: apply-reader\nnamespace: team-apply\n');
  writeFileSync(join(dir, 'restriction.yaml'), 'kind: Restriction\naction: delete\nresourceKind: agent\nnamespace: team-apply\n');
  // Not manifests: other files and subdirectories are not read.
  writeFileSync(join(dir, 'README.md'), '# team-apply\n');
  mkdirSync(join(dir, 'drafts'), { recursive: true });
  writeFileSync(join(dir, 'drafts', 'broken.yaml'), 'kind: Nonsense\n');
}

const APPLIED_ORDER = [
  'namespace/team-apply',
  'role/apply-reader',
  'secret/model-key',
  'configuration/base',
  'agent/bot',
  'accessbinding/apply-reader@team-apply for apply-ci',
  'restriction/delete:agent@team-apply',
];

describe('occ apply -f and occ diff -f against a real HTTP controller', () => {
  let world: CliWorld;
  let home: string;
  let team: string;
  const env = { MODEL_KEY: 'sk-canary-apply-0042' };
  const apply = (...args: string[]) => world.occ(['apply', ...args], { env });
  const get = async (url: string) => (await world.controller.request({ method: 'GET', url })).body.data;

  beforeAll(async () => {
    world = await startCliWorld();
    home = mkdtempSync(join(world.home, 'manifests-'));
    team = join(home, 'team');
    writeTeamDirectory(team);
    // Principals are not applied (their own `kind` would clash with the document's): made once by hand.
    expect((await world.occ(['principals', 'create', 'apply-ci', '--kind', 'service'])).code).toBe(0);
  });
  afterAll(() => world?.close());

  it('applies a directory in dependency order, then a second run finds everything unchanged and writes nothing', async () => {
    const first = await apply('-f', team);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(APPLIED_ORDER.map((ref) => `${ref} created\n`).join(''));
    expect(first.stdout + first.stderr).not.toContain(env.MODEL_KEY);

    const ns = (await get('/namespaces')).items.find((n: { name: string }) => n.name === 'team-apply');
    const agent = (await get(`/namespaces/${ns.id}/agents`)).items[0];
    const cfg = (await get(`/namespaces/${ns.id}/configurations`)).items[0];
    const secret = (await get(`/namespaces/${ns.id}/secrets`)).items[0];
    expect(cfg).toMatchObject({ name: 'base', generation: 1, secretBindings: { MODEL_API_KEY: { secretId: secret.id } } });
    expect(agent).toMatchObject({ name: 'bot', configurationId: cfg.id, version: 1, desiredState: 'stopped' });
    const audited = (await get('/audit-events?limit=200')).items.length;

    const second = await apply('-f', team);
    expect([second.code, second.stderr]).toEqual([0, '']);
    expect(second.stdout).toBe(APPLIED_ORDER.map((ref) => `${ref} unchanged\n`).join(''));
    expect((await get(`/namespaces/${ns.id}/configurations/${cfg.id}`)).generation).toBe(1);
    expect((await get(`/namespaces/${ns.id}/agents/${agent.id}`)).version).toBe(1);
    expect((await get('/audit-events?limit=200')).items.length).toBe(audited);

    const same = await world.occ(['diff', '-f', team]);
    expect([same.code, same.stdout, same.stderr]).toEqual([0, '', '']);
  });

  it('a changed file: diff shows the change and exits 1, --dry-run says configured and writes nothing, apply configures it once', async () => {
    const changed = join(home, 'changed');
    cpSync(team, changed, { recursive: true });
    const bot = join(changed, 'bot.yaml');
    writeFileSync(bot, readFileSync(bot, 'utf8').replace('port: 18789', 'port: 18790').replace('    enabled: true', '    enabled: false'));

    const diff = await world.occ(['diff', '-f', changed]);
    expect([diff.code, diff.stderr]).toEqual([1, '']);
    expect(diff.stdout).toContain(
      `--- configuration/base (server)\n+++ configuration/base (${changed}/bot.yaml#1)\n@@ -1,7 +1,7 @@\n name: base\n values:\n   gateway:\n-    port: 18789\n+    port: 18790\n`,
    );
    expect(diff.stdout).toContain(`--- agent/bot (server)\n+++ agent/bot (${changed}/bot.yaml#2)\n`);
    expect(diff.stdout).toContain('   openclaw:llm-task:\n-    enabled: true\n+    enabled: false\n');
    expect((await world.occ(['diff', '-f', changed, '-q'])).stdout).toBe('');

    const dry = await apply('-f', changed, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout.split('\n').filter((line) => !line.endsWith('unchanged (dry run)'))).toEqual([
      'configuration/base configured (dry run)',
      'agent/bot configured (dry run)',
      '',
    ]);
    expect((await world.occ(['diff', '-f', changed])).code).toBe(1);

    const applied = await apply('-f', changed, '-o', 'json');
    expect(applied.code, applied.stderr).toBe(0);
    const items = json(applied.stdout).items as Array<{ object: string; result: string; id: string }>;
    expect(items.map((item) => `${item.object} ${item.result}`).filter((line) => !line.endsWith('unchanged'))).toEqual(['configuration/base configured', 'agent/bot configured']);
    expect(items.every((item) => /^[a-z]+_/.test(item.id))).toBe(true);
    const cfg = items.find((item) => item.object === 'configuration/base')!;
    const ns = (await get('/namespaces')).items.find((n: { name: string }) => n.name === 'team-apply');
    expect((await get(`/namespaces/${ns.id}/configurations/${cfg.id}`)).generation).toBe(2);
    expect((await apply('-f', changed)).stdout).not.toMatch(/configured|created/);
    expect((await world.occ(['diff', '-f', changed])).code).toBe(0);
    // Back to the first files: configured again, then settled.
    expect((await apply('-f', team, '-o', 'name')).stdout).toBe(APPLIED_ORDER.map((ref) => `${ref}\n`).join(''));
  });

  it('a preview of objects that do not exist yet: the diff adds whole objects, references to what the same apply creates are shown as such', async () => {
    const fresh = join(home, 'fresh.yaml');
    writeFileSync(
      fresh,
      [
        'kind: Configuration',
        'name: c2',
        'namespace: team-new',
        'values: { gateway: { port: 1 } }',
        'secretBindings:',
        '  K: { secret: k2 }',
        '---',
        'kind: Namespace',
        'name: team-new',
        '---',
        'kind: Secret',
        'name: k2',
        'namespace: team-new',
        'fromEnv: MODEL_KEY',
      ].join('\n'),
    );
    const diff = await world.occ(['diff', '-f', fresh]);
    expect([diff.code, diff.stderr]).toEqual([1, '']);
    expect(diff.stdout).toBe(
      [
        '--- /dev/null',
        `+++ namespace/team-new (${fresh}#2)`,
        '@@ -0,0 +1,1 @@',
        '+name: team-new',
        '--- /dev/null',
        `+++ secret/k2 (${fresh}#3)`,
        '@@ -0,0 +1,1 @@',
        '+name: k2',
        '--- /dev/null',
        `+++ configuration/c2 (${fresh}#1)`,
        '@@ -0,0 +1,7 @@',
        '+name: c2',
        '+values:',
        '+  gateway:',
        '+    port: 1',
        '+secretBindings:',
        '+  K:',
        '+    secretId: (secret k2, not created yet)',
        '',
      ].join('\n'),
    );
    const dry = await apply('-f', fresh, '--dry-run');
    expect([dry.code, dry.stdout]).toEqual([0, 'namespace/team-new created (dry run)\nsecret/k2 created (dry run)\nconfiguration/c2 created (dry run)\n']);
    expect((await get('/namespaces')).items.map((n: { name: string }) => n.name)).not.toContain('team-new');
    // A reference to something neither the server nor the files have is an error, in a preview too.
    writeFileSync(fresh, 'kind: Configuration\nname: c3\nvalues: {}\nsecretBindings:\n  K: { secret: nowhere }\n');
    const missing = await world.occ(['diff', '-f', fresh]);
    expect([missing.code, missing.stderr]).toEqual([3, `error: configuration/c3 (${fresh}): NOT_FOUND: No Secret named "nowhere" in this Namespace\n`]);
  });

  it('what the API cannot change in place is refused with exit 5, and the other objects are still applied', async () => {
    const dir = join(home, 'refused');
    mkdirSync(dir);
    writeFileSync(join(dir, 'role.yaml'), 'kind: Role\nname: apply-reader\npermissions:\n  - { action: read, resourceKind: agent }\n');
    writeFileSync(join(dir, 'agent.yaml'), 'kind: Agent\nname: bot\nnamespace: team-apply\nharness: codex\n');
    writeFileSync(join(dir, 'ns.yaml'), 'kind: Namespace\nname: team-other\n');
    const run = await apply('-f', dir);
    expect(run.code).toBe(5);
    expect(run.stdout).toBe('namespace/team-other created\n');
    expect(run.stderr).toBe(
      [
        `error: role/apply-reader (${dir}/role.yaml): it differs from the file, and the API cannot change a role in place: apply it under a new name and bind that, or delete this one (once no binding uses it) and apply again`,
        `error: agent/bot (${dir}/agent.yaml): it differs from the file, and an Agent's harness cannot change (it is openclaw): apply it under another name`,
        '',
      ].join('\n'),
    );
    const diff = await world.occ(['diff', '-f', join(dir, 'role.yaml')]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toContain(' permissions:\n   - action: read\n     resourceKind: agent\n-  - action: read\n-    resourceKind: namespace\n');
    expect(diff.stderr).toContain('role/apply-reader: apply would refuse this change: the API cannot change a role in place');
  });

  it('a document apply cannot use is refused before anything is written (exit 2), naming the file and what is wrong', async () => {
    const bad = (name: string, text: string) => {
      const path = join(home, name);
      writeFileSync(path, text);
      return path;
    };
    const cases: Array<[string, string]> = [
      [
        bad('no-kind.yaml', 'kind: Namespace\nname: ok-1\n---\nname: base\n'),
        `error: ${home}/no-kind.yaml#2: no kind: say what it is, e.g. kind: Configuration (one of Namespace, Role, Secret, Configuration, Agent, AccessBinding, Restriction)\n`,
      ],
      [
        bad('unknown-kind.yaml', 'kind: Namespace\nname: ok-2\n---\nkind: Pod\nname: x\n'),
        `error: ${home}/unknown-kind.yaml#2: unknown kind "Pod" (one of Namespace, Role, Secret, Configuration, Agent, AccessBinding, Restriction)\n`,
      ],
      [
        bad('twice.yaml', 'kind: Namespace\nname: ok-3\n---\nkind: namespace\nname: ok-3\n'),
        `error: namespace/ok-3 is in ${home}/twice.yaml#1 and in ${home}/twice.yaml#2: give each object once\n`,
      ],
      [bad('list.yaml', '- kind: Namespace\n'), `error: ${home}/list.yaml must hold one object (a mapping) per document\n`],
    ];
    for (const [path, stderr] of cases) {
      const run = await apply('-f', path);
      expect([run.code, run.stdout, run.stderr], path).toEqual([2, '', stderr]);
    }
    expect((await get('/namespaces')).items.map((n: { name: string }) => n.name)).not.toContain('ok-1');

    const syntax = await apply('-f', bad('syntax.yaml', 'kind: Namespace\nname: [ok\n'));
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(new RegExp(`^error: ${home}/syntax\\.yaml is not valid JSON or YAML: line \\d+, column \\d+: `));

    const inline = await apply('-f', bad('inline.yaml', 'kind: Secret\nname: leaked\nvalue: sk-canary\n'));
    expect([inline.code, inline.stderr]).toEqual([
      2,
      `error: secret/leaked (${home}/inline.yaml): a Secret's value is not written in a manifest (it would sit in a file, in version control): give fromEnv: VARIABLE or fromFile: PATH\n`,
    ]);
    const typo = await apply('-f', bad('typo.yaml', 'kind: Configuration\nname: base\nnamespace: team-apply\nvalue: {}\n'));
    expect([typo.code, typo.stderr]).toEqual([
      2,
      `error: configuration/base (${home}/typo.yaml): Configuration has no field value (it has name, values, secretBindings, namespace)\n`,
    ]);
  });

  it('--dry-run=server: the server checks every create and update as it would a write and keeps nothing; what needs an object the same apply creates says the server could not check it', async () => {
    const dir = join(home, 'server-dry');
    mkdirSync(dir);
    // An Agent the client-side preview cannot fault, but the server refuses: its plugin is in no catalog.
    writeFileSync(
      join(dir, 'agent.yaml'),
      'kind: Agent\nname: bot-dry\nnamespace: team-apply\nharness: openclaw\nconfiguration: base\nplugins:\n  openclaw:@openclaw/does-not-exist-xyz:\n    enabled: true\n',
    );
    writeFileSync(join(dir, 'cfg.yaml'), 'kind: Configuration\nname: base\nnamespace: team-apply\nvalues: { gateway: { port: 18791 } }\n');
    writeFileSync(join(dir, 'ns.yaml'), 'kind: Namespace\nname: team-dry\n---\nkind: Secret\nname: k-dry\nnamespace: team-dry\nfromEnv: MODEL_KEY\n');
    const audited = (await get('/audit-events?limit=200')).items.length;
    const generation = (await get('/namespaces')).items.length;
    const client = await apply('-f', join(dir, 'agent.yaml'), '--dry-run');
    expect([client.code, client.stdout]).toEqual([0, 'agent/bot-dry created (dry run)\n']);
    const server = await apply('-f', dir, '--dry-run=server');
    expect(server.stdout).toBe(
      [
        'namespace/team-dry created (server dry run)',
        'secret/k-dry created (dry run; not checked by the server: it needs namespace/team-dry first)',
        'configuration/base configured (server dry run)',
        '',
      ].join('\n'),
    );
    expect(server.code).toBe(2); // the server's 400, as the write would get it
    expect(server.stderr).toContain(`error: agent/bot-dry (${dir}/agent.yaml): `);
    expect(server.stderr).toContain('does-not-exist-xyz');
    // Nothing was kept: no Namespace, no Agent, the Configuration as it was, no audit event.
    expect((await get('/namespaces')).items.length).toBe(generation);
    const ns = (await get('/namespaces')).items.find((n: { name: string }) => n.name === 'team-apply');
    expect((await get(`/namespaces/${ns.id}/agents`)).items.map((a: { name: string }) => a.name)).not.toContain('bot-dry');
    const cfg = (await get(`/namespaces/${ns.id}/configurations`)).items.find((c: { name: string }) => c.name === 'base');
    expect(cfg.values).not.toMatchObject({ gateway: { port: 18791 } });
    expect((await get('/audit-events?limit=200')).items.length).toBe(audited);
  });

  it('a Secret from a file next to the manifest; standard input as the manifest', async () => {
    const dir = join(home, 'from-file');
    mkdirSync(dir);
    writeFileSync(join(dir, 'key.txt'), 'sk-canary-from-file\n');
    writeFileSync(join(dir, 'secret.yaml'), 'kind: Secret\nname: file-key\nfromFile: key.txt\n');
    expect((await apply('-f', dir)).stdout).toBe('secret/file-key created\n');
    const fromStdin = await world.occ(['apply', '-f', '-'], { stdin: 'kind: Secret\nname: file-key\n' });
    expect([fromStdin.code, fromStdin.stdout]).toEqual([0, 'secret/file-key unchanged\n']);
  });

  it('occ configurations apply and occ agents apply take the same path: an object equal to its file is unchanged, no new generation or version, no audit event', async () => {
    const dir = join(home, 'one-object');
    mkdirSync(dir);
    const cfgFile = join(dir, 'cfg.yaml');
    const agentFile = join(dir, 'agent.yaml');
    writeFileSync(cfgFile, 'name: one-cfg\nvalues:\n  gateway: { port: 18795 }\nsecretBindings:\n  MODEL_API_KEY: { secret: model-key }\n');
    writeFileSync(agentFile, 'name: one-bot\nharness: openclaw\nconfiguration: one-cfg\nplugins:\n  openclaw:llm-task: { enabled: true }\n');
    const one = (noun: string, file: string, ...more: string[]) => world.occ([noun, 'apply', '-f', file, '-n', 'team-apply', ...more]);

    const cfgCreated = await one('configurations', cfgFile, '-o', 'json');
    expect([cfgCreated.code, cfgCreated.stderr]).toEqual([0, 'Configuration one-cfg created.\n']);
    const cfg = json(cfgCreated.stdout);
    expect(cfg).toMatchObject({ name: 'one-cfg', generation: 1 });
    const agentCreated = await one('agents', agentFile, '-o', 'json');
    expect([agentCreated.code, agentCreated.stderr]).toEqual([0, 'Agent one-bot created.\n']);
    const agent = json(agentCreated.stdout);
    expect(agent).toMatchObject({ name: 'one-bot', configurationId: cfg.id, version: 1 });
    // The audit events about these two objects (newest first; the file's earlier tests wrote others).
    const auditedOf = async () =>
      (await get('/audit-events?limit=200')).items
        .filter((e: { resource?: { id?: string } }) => [cfg.id, agent.id].includes(e.resource?.id))
        .map((e: { action: string }) => e.action);
    const audited = await auditedOf();
    expect(audited).toEqual(['agents.create', 'configurations.create']);

    // The same files again: nothing is sent, the objects as they were are printed.
    const cfgAgain = await one('configurations', cfgFile, '-o', 'json');
    expect([cfgAgain.code, cfgAgain.stderr]).toEqual([0, 'Configuration one-cfg unchanged: it equals the file, nothing was written.\n']);
    expect(json(cfgAgain.stdout)).toEqual(cfg);
    const agentAgain = await one('agents', agentFile, '-o', 'json');
    expect([agentAgain.code, agentAgain.stderr]).toEqual([0, 'Agent one-bot unchanged: it equals the file, nothing was written.\n']);
    expect(json(agentAgain.stdout)).toEqual(agent);
    expect((await one('agents', agentFile, '-q')).stdout).toBe(`${agent.id}\n`);
    expect(await auditedOf()).toEqual(audited);
    expect((await get(`/namespaces/${cfg.namespaceId}/configurations/${cfg.id}`)).generation).toBe(1);
    expect((await get(`/namespaces/${agent.namespaceId}/agents/${agent.id}`)).version).toBe(1);

    // A change is written once, with If-Match on what was read; then it is unchanged again.
    writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace('{ enabled: true }', '{ enabled: false }'));
    const changed = await one('agents', agentFile, '-o', 'json');
    expect([changed.code, changed.stderr]).toEqual([0, 'Agent one-bot updated.\n']);
    expect(json(changed.stdout)).toMatchObject({ version: 2, plugins: { 'openclaw:llm-task': { enabled: false } } });
    expect((await one('agents', agentFile)).stderr).toBe('Agent one-bot unchanged: it equals the file, nothing was written.\n');
    expect(await auditedOf()).toEqual(['agents.update', ...audited]);

    // A file of another kind, or a field the kind does not have, is refused naming the file, before anything is sent.
    writeFileSync(join(dir, 'kinded.yaml'), 'kind: Configuration\nname: one-cfg\nvalues: {}\n');
    const kinded = await one('agents', join(dir, 'kinded.yaml'));
    expect([kinded.code, kinded.stdout, kinded.stderr]).toEqual([2, '', `error: ${dir}/kinded.yaml: kind "Configuration" is not Agent: occ apply -f takes every kind\n`]);
    writeFileSync(join(dir, 'typo.yaml'), 'name: one-cfg\nvalue: {}\n');
    const typo = await one('configurations', join(dir, 'typo.yaml'));
    expect([typo.code, typo.stdout, typo.stderr]).toEqual([2, '', `error: ${dir}/typo.yaml: Configuration has no field value (it has name, values, secretBindings, namespace)\n`]);
    expect(await auditedOf()).toEqual(['agents.update', ...audited]);
  });
});
