import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntime, type RunningRuntime } from './support/runtime-process.ts';

// The gateway's token is in its environment, which every process of the Agent's user can read in
// /proc, and OpenClaw passes it on to every command its host `exec` tool runs (its exec blocklist
// names no OPENCLAW_ variable): an Agent whose tools include `exec` holds it. With it, OpenClaw's own CLI
// speaks to the gateway as its administrator, and an automation's "command" payload is a shell
// command the gateway runs by itself, outside the tool policy, stored in the Agent's state (so it
// outlives the revision that planted it). The attack here is what that `exec` would run, with the
// token it inherits; the runtime turns the scheduler off unless the Configuration asks for it.
let runtime: RunningRuntime;
let gatewayPort: number;
const scratch = mkdtempSync(join(tmpdir(), 'occ-automation-attack-'));

beforeAll(async () => {
  runtime = await startRuntime({ selections: {} });
  const status = await runtime.settled(240_000);
  expect(status.phase, JSON.stringify(status)).toBe('ready');
  gatewayPort = status.gatewayPort!;
}, 300_000);

afterAll(async () => {
  await runtime?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

/** The gateway's token as any process of the Agent's user reads it: from the gateway's own environment in /proc. */
function tokenFromProc(): string {
  const pid = runtime.events().find((event) => event.event === 'gateway.started')?.pid as number;
  const token = /(?:^|\0)OPENCLAW_GATEWAY_TOKEN=([^\0]+)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
  if (!token) throw new Error('no gateway token in the gateway environment');
  return token;
}

/** The pinned `openclaw` CLI as the Agent's `exec` would run it, with the token in its environment. */
function asTheAgent(args: string[], token: string) {
  return runtime.cli.run([...args, '--port', String(gatewayPort), '--json'], { timeoutMs: 120_000, env: { OPENCLAW_GATEWAY_TOKEN: token } });
}

describe('an automation planted with the gateway token', () => {
  it('[P-7] a shell command scheduled through the gateway by whoever holds its token never runs on its schedule: the scheduler is off unless the Configuration turns it on', async () => {
    const marker = join(scratch, 'planted-command-ran');
    const token = tokenFromProc();
    expect(token).toBe(runtime.gatewayToken);
    const created = await asTheAgent(['automations', 'create', '--name', 'planted', '--every', '2s', '--command', `echo ran >> ${marker}`], token);
    // The gateway takes it (OpenClaw has no switch against that): a job of the Agent's state, with a shell payload.
    expect(created.kind === 'exited' && created.code === 0, JSON.stringify(created)).toBe(true);
    const job = JSON.parse((created as { stdout: string }).stdout) as { payload?: { kind?: string } };
    expect(job.payload?.kind).toBe('command');
    // Well past several due times: nothing ran it.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    expect(existsSync(marker)).toBe(false);
  }, 300_000);
});
