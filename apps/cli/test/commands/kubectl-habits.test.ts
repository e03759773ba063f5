import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OCC_VERSION } from '@occ/contracts';
import type { ComputeDriver } from '../../../../apps/controller/src/core/ports/compute-driver.ts';
import { startCliWorld, type CliWorld } from '../../../../test-support/cli-world.ts';
import { admit, newDeployTarget, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';

const json = (stdout: string) => JSON.parse(stdout);
const tableRows = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

/** The scripted compute, with a runtime log the test writes: OpenClaw-style, JSON and untimed lines. */
function computeWithLog() {
  const log: string[] = [];
  const compute: ComputeDriver = { ...createScriptedCompute(), readLogs: async (_agent, _revision, { tail }) => ({ lines: log.slice(-tail), truncated: log.length > tail }) };
  return { compute, log };
}

/** What a kubectl or gh user reaches for: version, whoami, -o name|wide|jsonpath, logs --since. */
describe('occ version, whoami, -o name|wide|jsonpath and logs --since against a real HTTP controller', () => {
  let world: CliWorld;
  let logs: ReturnType<typeof computeWithLog>;
  let bot: DeployTarget & { name: string };

  beforeAll(async () => {
    logs = computeWithLog();
    world = await startCliWorld({ compute: logs.compute });
    const target = await newDeployTarget(world.controller, { plugins: {} });
    bot = { ...target, name: (await world.controller.request({ method: 'GET', url: target.url })).body.data.name };
    await admit(world.controller, bot);
  });
  afterAll(() => world?.close());

  it("version: this occ's and the server's; --client asks no server; no server: the client's, then the error", async () => {
    const run = await world.occ(['version']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      `Client Version: ${OCC_VERSION} (Node.js ${process.version})\nServer Version: ${OCC_VERSION} (Node.js ${process.version}, database schema ${json((await world.occ(['version', '-o', 'json'])).stdout).serverVersion.schemaVersion}) at ${world.server}\n`,
    );
    expect(json((await world.occ(['version', '-o', 'json'])).stdout)).toEqual({
      clientVersion: { version: OCC_VERSION, node: process.version },
      serverVersion: { version: OCC_VERSION, schemaVersion: expect.any(Number), node: process.version, server: world.server },
    });
    expect((await world.occ(['version', '-o', 'jsonpath={.serverVersion.version}'])).stdout).toBe(`${OCC_VERSION}\n`);
    const down = await world.occ(['version', '--server', 'http://127.0.0.1:9'], { env: { OCC_API_KEY: 'x' } });
    expect([down.code, down.stdout]).toEqual([7, `Client Version: ${OCC_VERSION} (Node.js ${process.version})\n`]);
    const client = await world.occ(['version', '--client', '--server', 'http://127.0.0.1:9']);
    expect([client.code, client.stdout]).toEqual([0, `Client Version: ${OCC_VERSION} (Node.js ${process.version})\n`]);
  });

  it('whoami (and auth status): the principal, server, context, Namespace and its bindings; a key that may not list bindings says so', async () => {
    const admin = await world.occ(['whoami']);
    expect(admin.code, admin.stderr).toBe(0);
    const lines = admin.stdout.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      expect.stringMatching(/^Principal: {2}administrator \(human, prn_[0-9a-f-]{36}\)$/),
      'Credential: API key of context test',
      `Server:     ${world.server}`,
      'Context:    test',
      'Namespace:  default',
    ]);
    expect(lines[5]).toBe('Bindings:');
    expect(tableRows(lines.slice(6).join('\n'))[1]).toEqual([expect.stringMatching(/^bind_/), 'administrator', 'installation-administrator', '*', '*', expect.any(String)]);
    // The same command under gh's name (the AGE column aside, which ticks).
    const ageless = (stdout: string) => stdout.replace(/\d+s$/gm, '');
    expect(ageless((await world.occ(['auth', 'status'])).stdout)).toBe(ageless(admin.stdout));
    expect((await world.occ(['whoami', '-o', 'name'])).stdout).toBe('principal/administrator\n');
    const data = json((await world.occ(['whoami', '-o', 'json'])).stdout);
    expect(data).toMatchObject({
      principal: { name: 'administrator', kind: 'human' },
      credential: 'api_key',
      server: world.server,
      context: 'test',
      namespace: 'default',
      bindings: [{ principalId: data.principal.id }],
    });

    // A service principal with a key and no binding at all: who it is, and that its bindings are not its to read.
    expect((await world.occ(['principals', 'create', 'ci-nobody', '--kind', 'service'])).code).toBe(0);
    const key = (await world.occ(['keys', 'create', '--principal', 'ci-nobody', '--quiet'])).stdout.trim();
    // Named differently from the context's server, so no context applies: the key comes from the environment only.
    const elsewhere = world.server.replace('127.0.0.1', 'localhost');
    const nobody = await world.occ(['whoami', '--server', elsewhere], { env: { OCC_API_KEY: key } });
    expect(nobody.code, nobody.stderr).toBe(0);
    expect(nobody.stdout).toMatch(/^Principal: {2}ci-nobody \(service, prn_[0-9a-f-]{36}\)\n/);
    expect(nobody.stdout).toContain(
      `Credential: API key from OCC_API_KEY\nServer:     ${elsewhere}\nContext:    - (OCC_SERVER and OCC_API_KEY)\nNamespace:  -\nBindings:   not readable with this key (listing bindings needs installation administer)\n`,
    );
    const wrong = await world.occ(['whoami', '--server', elsewhere], { env: { OCC_API_KEY: `occ_${'x'.repeat(43)}` } });
    expect(wrong.code).toBe(4);
  });

  it("-o name prints kind/name per line, -o wide adds columns, -o jsonpath picks from the API's data", async () => {
    const names = await world.occ(['agents', 'list', '-o', 'name']);
    expect([names.code, names.stdout]).toEqual([0, `agent/${bot.name}\n`]);
    expect((await world.occ(['namespaces', 'get', 'default', '-o', 'name'])).stdout).toBe('namespace/default\n');
    expect((await world.occ(['revisions', 'list', bot.name, '-o', 'name'])).stdout).toBe('revision/1\n');
    expect((await world.occ(['roles', 'list', '-o', 'name'])).stdout).toBe('role/installation-administrator\n');

    const [header, row] = tableRows((await world.occ(['agents', 'list', '-o', 'wide'])).stdout);
    expect(header).toEqual([
      'NAME',
      'ID',
      'HARNESS',
      'DESIRED',
      'PLUGINS',
      'ACTIVE REVISION',
      'AGE',
      'CONFIGURATION',
      'VERSION',
      'DISABLED PLUGINS',
      'SERVICE PRINCIPAL',
      'UPDATED',
    ]);
    expect(row!.slice(7, 11)).toEqual([bot.cfg, '1', '-', bot.servicePrincipalId]);
    expect(tableRows((await world.occ(['agents', 'list'])).stdout)[0]).toEqual(header!.slice(0, 7));

    expect((await world.occ(['agents', 'list', '-o', 'jsonpath={.items[*].name}'])).stdout).toBe(`${bot.name}\n`);
    expect((await world.occ(['agents', 'get', bot.name, '-o', 'jsonpath={.name} {.configurationId}'])).stdout).toBe(`${bot.name} ${bot.cfg}\n`);
    expect((await world.occ(['namespaces', 'list', '-o', "jsonpath={.items[0]['name']}"])).stdout).toBe('default\n');
    expect((await world.occ(['agents', 'get', bot.name, '-o', 'jsonpath={.no.such.field}'])).stdout).toBe('\n');

    const unsupported = await world.occ(['agents', 'list', '-o', 'jsonpath={range .items[*]}{.name}{end}']);
    expect(unsupported.code).toBe(2);
    expect(unsupported.stderr).toContain('jsonpath: {range} is not supported at column 2 of "{range .items[*]}{.name}{end}"');
    const document = await world.occ(['agents', 'capabilities', bot.name, '-o', 'name']);
    expect([document.code, document.stderr]).toEqual([2, 'error: -o name prints kind/name of resources; this answer is a document: use -o json, yaml or jsonpath=TEMPLATE\n']);
    expect((await world.occ(['keys', 'create', '--principal', 'administrator', '-o', 'name'])).code).toBe(2);
  });

  it('shell completion knows the new verbs and flags, and the values of -o', async () => {
    const script = (await world.occ(['completion', 'bash'])).stdout;
    const complete = (words: string[]) =>
      spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _occ; echo "\${COMPREPLY[@]}"`], {
        encoding: 'utf8',
      }).stdout.trim();
    expect(complete(['occ', 'who'])).toBe('whoami');
    expect(complete(['occ', 'auth', 'st'])).toBe('status');
    expect(complete(['occ', 'ver'])).toBe('version');
    expect(complete(['occ', 'app'])).toBe('apply');
    expect(complete(['occ', 'dif'])).toBe('diff');
    expect(complete(['occ', 'apply', '--dry'])).toBe('--dry-run');
    expect(complete(['occ', 'logs', 'bot', '--si'])).toBe('--since');
    expect(complete(['occ', 'status', 'bot', '--wa'])).toBe('--watch');
    // `agents edit` (in $EDITOR without flags), under the group's alias too.
    expect(complete(['occ', 'agent', 'ed'])).toBe('edit');
    expect(complete(['occ', 'agents', 'list', '-o', ''])).toBe('table wide name json yaml jsonpath=');
    expect(complete(['occ', '--output', 'w'])).toBe('wide');
    const fish = (await world.occ(['completion', 'fish'])).stdout;
    expect(fish).toContain("complete -c occ -l output -s o -xa 'table wide name json yaml jsonpath='");
    expect(fish).toContain("complete -c occ -n '__fish_use_subcommand' -a 'whoami'");
  });

  it('logs --since: the lines written since then, by the time each carries; an untimed line goes with the one above it', async () => {
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    logs.log.push(
      `${at(90)} [occ-local] runtime started`,
      'npm output with no time of its own (90 minutes ago)',
      JSON.stringify({ time: at(30), source: 'occ-runtime', event: 'startup.step', step: 'plan' }),
      `${at(5).replace('Z', '+00:00')} [gateway] ready`,
      '    at a stack line of the gateway (5 minutes ago)',
    );
    const recent = await world.occ(['logs', bot.name, '--since', '10m']);
    expect([recent.code, recent.stderr]).toEqual([0, '']);
    expect(recent.stdout.split('\n').slice(0, -1)).toEqual(logs.log.slice(3));
    expect((await world.occ(['logs', bot.name, '--since', '1h'])).stdout.split('\n').length).toBe(4);
    expect((await world.occ(['logs', bot.name, '--since', at(45)])).stdout).toBe(`${logs.log.slice(2).join('\n')}\n`);
    expect((await world.occ(['logs', bot.name, '--since', '2h', '--tail', '1'])).stdout).toBe(`${logs.log[4]}\n`);
    expect(json((await world.occ(['logs', bot.name, '--since', '10m', '-o', 'json'])).stdout)).toEqual({ lines: logs.log.slice(3), truncated: false });

    const bad = await world.occ(['logs', bot.name, '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "error: option '--since <duration|time>' argument 'yesterday' is invalid. a duration such as 10m, 1h30m or 2d, or a time such as 2026-12-03T09:00:00Z (with its zone)",
    );
    logs.log.splice(0, logs.log.length, 'no time here', 'nor here');
    const untimed = await world.occ(['logs', bot.name, '--since', '1h']);
    expect([untimed.code, untimed.stdout, untimed.stderr]).toEqual([0, '', 'None of the 2 lines read carries a time, so --since cannot tell which are recent.\n']);
  });
});
