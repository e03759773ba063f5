import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startOccUp, waitForOccBanner } from '../../../../test-support/occ-up.ts';

/** Every process whose command line names `dir`: npm, `occ up`, the runtime and its sandbox. */
function processesNaming(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(dir));
}

/** The processes under `dir` other than `occ up` itself: the Agents' runtimes. */
function processesUnder(dir: string): string[] {
  return processesNaming(dir).filter((line) => !line.includes(' up --data-dir'));
}

/**
 * The terminal that ran `occ up` closes (or the process that started it sends its process group a
 * signal and exits, closing OCC's output pipes): OCC must still stop every Agent runtime it runs
 * before it ends. Real `occ up` (PGlite, the local ComputeDriver, the real runtime), one Agent with
 * no plugins deployed.
 */
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));

describe('occ up when its terminal goes away', () => {
  const dir = mkdtempSync(join(tmpdir(), 'occ-hangup-'));
  let up: ChildProcess | undefined;
  afterAll(() => {
    for (const line of processesNaming(dir)) {
      try {
        process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    if (up?.exitCode === null) up.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it("SIGHUP to its process group with its output pipes closed: OCC stops the Agent's runtime, then exits 0", async () => {
    const running = await startOccUp(dir, { ...process.env, HOME: dir, OCC_LOG_LEVEL: 'info' }, { detached: true });
    up = running.process;
    const { server, adminKey: key } = running;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as { data: any };
    };
    const ns = (await api('GET', '/namespaces')).data.items[0].id;
    const cfg = (await api('POST', `/namespaces/${ns}/configurations`, { name: 'plain', values: {} })).data;
    const agent = (await api('POST', `/namespaces/${ns}/agents`, { name: 'bot', configurationId: cfg.id, harness: 'openclaw' })).data;
    const revision = (await api('POST', `/namespaces/${ns}/agents/${agent.id}/deploy`)).data;
    await expect
      .poll(async () => (await api('GET', `/namespaces/${ns}/agents/${agent.id}/deployments/${revision.id}`)).data.state, { timeout: 300_000, interval: 1_000 })
      .toBe('succeeded');
    expect(processesUnder(dir).length).toBeGreaterThan(0);

    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => up!.once('exit', (code, signal) => resolve({ code, signal })));
    process.kill(-up.pid!, 'SIGHUP');
    // As a closed terminal or an exited parent leaves it: nobody reads OCC's output any more.
    up.stdout!.destroy();
    up.stderr!.destroy();
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(processesUnder(dir)).toEqual([]);
  }, 420_000);

  it.each(['SIGINT', 'SIGTERM'] as const)(
    "`npm start` (the README's command) ends with OCC when npm gets %s: npm's signal reaches OCC itself, nothing is left behind",
    async (signal) => {
      const data = join(dir, `npm-data-${signal}`);
      const npm = spawn('npm', ['start', '--', '--data-dir', data, '--port', '0', '--no-context'], {
        cwd: REPOSITORY,
        env: { ...process.env, HOME: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await waitForOccBanner(npm);
      expect(processesNaming(data).some((line) => line.includes('occ.mjs up'))).toBe(true);
      const exited = new Promise((resolve) => npm.once('exit', resolve));
      npm.kill(signal);
      await exited;
      // OCC was npm's own child (the script `exec`s it), so it got the signal and stopped.
      await expect.poll(() => processesNaming(data), { timeout: 30_000, interval: 500 }).toEqual([]);
    },
    180_000,
  );
});
