import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { OCC_BIN } from '../../../../test-support/occ-up.ts';

/** Every process whose command line names `dir`: npm, `occ up`, the runtime and its sandbox. */
function processesNaming(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(dir));
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

  it('SIGHUP to its process group with its output pipes closed: OCC stops the Agent\'s runtime, then exits 0', async () => {
    up = spawn(process.execPath, [OCC_BIN, 'up', '--data-dir', join(dir, 'data'), '--port', '0', '--no-context'], {
      env: { ...process.env, HOME: dir, OCC_LOG_LEVEL: 'info' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let banner = '';
    const server = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`occ up did not start:\n${banner}`)), 120_000);
      const onData = (chunk: Buffer) => {
        banner += chunk;
        const match = /OCC is listening on (http:\/\/\S+)/.exec(banner);
        if (match && /Administrator API key/.test(banner)) {
          clearTimeout(timer);
          resolve(match[1]!.replace(/\/$/, ''));
        }
      };
      up!.stdout!.on('data', onData);
      up!.stderr!.on('data', onData);
    });
    const key = readFileSync(join(dir, 'data', 'admin-api-key'), 'utf8').trim();
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      return (await res.json()) as { data: any };
    };
    const ns = (await api('GET', '/namespaces')).data.items[0].id;
    const cfg = (await api('POST', `/namespaces/${ns}/configurations`, { name: 'plain', values: {} })).data;
    const agent = (await api('POST', `/namespaces/${ns}/agents`, { name: 'bot', configurationId: cfg.id, harness: 'openclaw' })).data;
    const revision = (await api('POST', `/namespaces/${ns}/agents/${agent.id}/deploy`)).data;
    await expect.poll(async () => (await api('GET', `/namespaces/${ns}/agents/${agent.id}/deployments/${revision.id}`)).data.state, { timeout: 300_000, interval: 1_000 }).toBe('succeeded');
    expect(processesUnder(dir).length).toBeGreaterThan(0);

    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => up!.once('exit', (code, signal) => resolve({ code, signal })));
    process.kill(-up.pid!, 'SIGHUP');
    // As a closed terminal or an exited parent leaves it: nobody reads OCC's output any more.
    up.stdout!.destroy();
    up.stderr!.destroy();
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(processesUnder(dir)).toEqual([]);
  }, 420_000);

  it('`npm start` (the README\'s command) ends with OCC when npm gets SIGTERM: npm\'s signal reaches OCC itself, nothing is left behind', async () => {
    const data = join(dir, 'npm-data');
    const npm = spawn('npm', ['start', '--', '--data-dir', data, '--port', '0', '--no-context'], { cwd: REPOSITORY, env: { ...process.env, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let banner = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not start OCC:\n${banner}`)), 120_000);
      const onData = (chunk: Buffer) => {
        banner += chunk;
        if (/Administrator API key/.test(banner)) {
          clearTimeout(timer);
          resolve();
        }
      };
      npm.stdout!.on('data', onData);
      npm.stderr!.on('data', onData);
    });
    expect(processesNaming(data).some((line) => line.includes('occ.mjs up'))).toBe(true);
    const exited = new Promise((resolve) => npm.once('exit', resolve));
    npm.kill('SIGTERM');
    await exited;
    // OCC was npm's own child (the script `exec`s it), so it got the signal and stopped.
    await expect.poll(() => processesNaming(data), { timeout: 30_000, interval: 500 }).toEqual([]);
  }, 180_000);
});
