import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { scriptedModelConfiguration } from '../../../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer } from '../../../test-support/scripted-model-server.ts';
import { freeLoopbackPort } from '../src/free-port.ts';
import { startGateway } from '../src/gateway.ts';
import { OpenClawCli, openclawEnvironment } from '../src/openclaw-cli.ts';
import { pinnedToolchain } from '../src/toolchain.ts';

// A gateway that fails to start, as the runtime starts it (its environment, its launch), against
// the pinned OpenClaw. OpenClaw answers an unsupervised gateway's failed start with "automatic
// triage": an agent run on the Agent's own model (with its key and tools) that tries to repair the
// installation — work nobody governs, asked of a model nobody asked. The runtime is the gateway's
// supervisor and says so (OPENCLAW_SUPERVISOR_MODE=external, openclaw-cli.ts); the failure then
// only ends the gateway, and the runtime reports it.
describe('a gateway that fails to start under the runtime', () => {
  const dir = mkdtempSync(join(tmpdir(), 'occ-gateway-fail-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('[N-8] only ends: no repair agent starts, the Agent’s model gets no request, no triage files are written', async () => {
    const model = await startScriptedModelServer();
    const stateDir = join(dir, 'state');
    const home = join(dir, 'home');
    const configPath = join(dir, 'openclaw.json');
    for (const path of [stateDir, home]) mkdirSync(path, { mode: 0o700 });
    writeFileSync(configPath, JSON.stringify(scriptedModelConfiguration(model)), { mode: 0o600 });
    const toolchain = pinnedToolchain();
    const env = openclawEnvironment({ toolchain, path: process.env.PATH ?? '/usr/bin:/bin', home, lang: 'C.UTF-8', stateDir, configPath, npmRegistry: null, network: {} });
    const written = [vi.spyOn(process.stdout, 'write'), vi.spyOn(process.stderr, 'write')];
    const output = () => written.flatMap((spy) => spy.mock.calls.map(([chunk]) => String(chunk))).join('');
    let said = '';
    let lock: DatabaseSync | undefined;
    try {
      const gateway = startGateway(new OpenClawCli(toolchain, env), { port: await freeLoopbackPort(), token: 'gateway-token-not-secret', secrets: {} });
      // Once its boot is recorded (it serves HTTP next), another OpenClaw process takes the Agent
      // state's lifecycle lock, as one still running on that state would, and keeps it.
      const database = join(realpathSync(stateDir), 'state', 'openclaw.sqlite');
      const since = Date.now();
      while (!lock && Date.now() - since < 60_000) {
        if (output().includes('starting HTTP server')) lock = heldStateLifecycleLock(database);
        if (!lock) await sleep(5);
      }
      const exit = await Promise.race([gateway.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 90_000))]);
      await gateway.stop(5_000);
      said = output();
      // It did fail to start, for the held lock (else this test proves nothing).
      expect(said).toContain('Gateway failed to start: another OpenClaw process owns state-lifecycle');
      expect(exit).not.toBe('still running');
      expect(exit).not.toMatchObject({ code: 0 });
    } finally {
      lock?.close();
      for (const spy of written) spy.mockRestore();
    }
    expect(said).not.toMatch(/triage/i);
    expect(model.requests).toEqual([]);
    const support = join(stateDir, 'logs', 'support');
    expect(existsSync(support) ? readdirSync(support) : []).toEqual([]);
    await model.close();
  }, 120_000);
});

/**
 * OpenClaw's state-lifecycle coordinator for a state database, held as another OpenClaw process
 * holds it: `/tmp/openclaw-state-locks-<uid>/state-lifecycle.<sha256(database path), 8 hex>.lock.sqlite`
 * in an exclusive SQLite transaction (the pinned OpenClaw's state-database-coordinator).
 */
function heldStateLifecycleLock(databasePath: string): DatabaseSync | undefined {
  const locks = join('/tmp', `openclaw-state-locks-${process.getuid?.() ?? 0}`);
  const hash = createHash('sha256').update(databasePath).digest('hex').slice(0, 8);
  const db = new DatabaseSync(join(locks, `state-lifecycle.${hash}.lock.sqlite`));
  try {
    // No busy wait: while the gateway holds it, this fails at once and is tried again.
    db.exec('PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE;');
    return db;
  } catch {
    db.close();
    return undefined;
  }
}
