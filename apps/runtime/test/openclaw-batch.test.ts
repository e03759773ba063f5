import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OpenClawCli, openclawEnvironment } from '../src/openclaw-cli.ts';
import { CliCommands } from '../src/openclaw-commands.ts';
import { OpenClawSession } from '../src/openclaw-session.ts';
import { pinnedToolchain } from '../src/toolchain.ts';

// The read-back batch against the pinned CLI itself: the answers of commands run in one process
// are the answers the same commands give as processes of their own.
describe('a prepare’s commands in one OpenClaw process (openclaw-session.ts, openclaw-batch.mjs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'occ-batch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const stateDir = join(dir, 'state');
  const home = join(dir, 'home');
  const configPath = join(dir, 'openclaw.json');
  for (const path of [stateDir, home]) mkdirSync(path, { mode: 0o700 });
  const writeConfig = (deny: string[], plugins: Record<string, unknown> = { allow: ['memory-core'], entries: { 'memory-core': { enabled: true } } }) =>
    writeFileSync(configPath, JSON.stringify({ tools: { profile: 'coding', deny }, plugins }), { mode: 0o600 });
  writeConfig(['exec']);
  const toolchain = pinnedToolchain();
  const env = openclawEnvironment({ toolchain, path: process.env.PATH ?? '/usr/bin:/bin', home, lang: 'C.UTF-8', stateDir, configPath, npmRegistry: null, network: {} });
  const cli = new OpenClawCli(toolchain, env);
  const commands = new CliCommands(cli, toolchain);
  const options = { timeoutMs: 120_000 };

  it('each command answers as it does alone; after one that fails, nothing more runs', async () => {
    const reads = await commands.readInOneProcess(
      [
        { command: 'refreshRegistry' },
        { command: 'configGet', section: 'tools' },
        { command: 'inspect', pluginId: 'memory-core' },
        { command: 'inspect', pluginId: 'occ-no-such-plugin' },
        { command: 'configGet', section: 'plugins' },
      ],
      options,
    );
    expect(reads.map(({ outcome }) => (outcome.kind === 'exited' ? outcome.code : outcome.kind))).toEqual([0, 0, 0, 1, 'skipped']);
    const [refresh, tools, inspected, missing] = reads.map(({ outcome }) => (outcome.kind === 'exited' ? outcome.stdout : ''));
    expect(JSON.parse(refresh!)).toMatchObject({ refreshed: true, registry: { installRecords: {} } });
    expect(JSON.parse(inspected!)).toMatchObject({ plugin: { id: 'memory-core' } });
    // A failure is the CLI's own JSON error and exit status, as `process.exit(1)` would end it alone.
    expect(JSON.parse(missing!)).toMatchObject({ ok: false, error: { message: expect.stringContaining('occ-no-such-plugin') } });
    expect(reads.every(({ ms }) => ms >= 0)).toBe(true);

    const alone = await cli.run(['config', 'get', 'tools', '--json'], options);
    expect(alone).toMatchObject({ kind: 'exited', code: 0 });
    expect(tools).toBe(alone.kind === 'exited' ? alone.stdout : null);
    const aloneMissing = await cli.run(['plugins', 'inspect', 'occ-no-such-plugin', '--json'], options);
    expect(aloneMissing).toMatchObject({ kind: 'exited', code: 1, stdout: missing });
  });

  it('a config path the CLI rejects fails that command with its exit status', async () => {
    const reads = await commands.readInOneProcess(
      [
        { command: 'configGet', section: 'occNoSuchSection' },
        { command: 'configGet', section: 'tools' },
      ],
      options,
    );
    expect(reads[0]?.outcome).toMatchObject({ kind: 'exited', code: 1, stdout: expect.stringContaining('occNoSuchSection') });
    expect(reads[1]?.outcome).toEqual({ kind: 'skipped' });
  });

  it('each command reads the config file as it is when it starts, though the process loaded it before (the runtime rewrites it between commands)', async () => {
    let processes = 0;
    const session = new OpenClawSession({ spawnLongLived: (script, args) => (processes++, cli.spawnLongLived(script, args)) }, toolchain);
    // `plugins list` answers from the configuration OpenClaw keeps loaded for the rest of a process unless it is cleared.
    const memoryCore = async () => {
      const read = await session.run(['plugins', 'list', '--json'], options);
      if (read.outcome.kind !== 'exited' || read.outcome.code !== 0) return read.outcome;
      const listed = JSON.parse(read.outcome.stdout) as { plugins: { id: string; enabled: boolean; status: string }[] };
      const plugin = listed.plugins.find(({ id }) => id === 'memory-core');
      return plugin && { enabled: plugin.enabled, status: plugin.status };
    };
    try {
      expect(await memoryCore()).toEqual({ enabled: true, status: 'loaded' });
      writeConfig(['exec'], { deny: ['memory-core'] });
      expect(await memoryCore()).toEqual({ enabled: false, status: 'disabled' });
      expect(processes).toBe(1);
    } finally {
      await session.end();
      writeConfig(['exec']);
    }
  });
});
