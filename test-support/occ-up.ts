import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A real `occ up` on its embedded defaults (PGlite, the local ComputeDriver) in a directory of the
 * caller's, on a port from the OS, without writing a CLI context. Imports no controller code, so
 * the console's browser tests (a DOM typecheck) can use it as well as the CLI's end-to-end test.
 */
export const OCC_BIN = fileURLToPath(new URL('../apps/cli/bin/occ.mjs', import.meta.url));

export interface RunningOccUp {
  /** e.g. http://127.0.0.1:41234 (no trailing slash). */
  server: string;
  adminKey: string;
  /** The `occ up` process (its own process group with `detached`). */
  process: ChildProcess;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Waits for the banner of an `occ up` that `child` runs (itself, or under `npm start`) and
 * resolves with the URL it listens on; with `first` until the administrator key line too.
 */
export function waitForOccBanner(child: ChildProcess, first = true): Promise<string> {
  let banner = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`occ up did not start:\n${banner}`)), 120_000);
    const onData = (chunk: Buffer) => {
      banner += chunk;
      const match = /OCC is listening on (http:\/\/\S+)/.exec(banner);
      if (match && (!first || /Administrator API key: .*\n/.test(banner))) {
        clearTimeout(timer);
        resolve(match[1]!.replace(/\/$/, ''));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`occ up exited ${code}:\n${banner}`)));
  });
}

/**
 * `firstOnDatabase: false`: a further `occ up` on a database another one already bootstrapped
 * (its banner prints no administrator key; `adminKey` is then empty). `detached`: in a process
 * group of its own, so a test can signal the group as a terminal would.
 */
export async function startOccUp(dir: string, env: NodeJS.ProcessEnv, options: { firstOnDatabase?: boolean; detached?: boolean } = {}): Promise<RunningOccUp> {
  const first = options.firstOnDatabase ?? true;
  const up: ChildProcess = spawn(process.execPath, [OCC_BIN, 'up', '--data-dir', join(dir, 'data'), '--port', '0', '--no-context'], {
    env,
    ...(options.detached ? { detached: true, stdio: ['ignore', 'pipe', 'pipe'] as const } : {}),
  });
  const server = await waitForOccBanner(up, first);
  return {
    server,
    adminKey: first ? readFileSync(join(dir, 'data', 'admin-api-key'), 'utf8').trim() : '',
    process: up,
    async stop() {
      if (up.exitCode !== null || up.signalCode !== null) return;
      const exited = new Promise((resolve) => up.once('exit', resolve));
      up.kill('SIGTERM');
      await exited;
    },
  };
}
