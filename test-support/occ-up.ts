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
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * `firstOnDatabase: false`: a further `occ up` on a database another one already bootstrapped
 * (its banner prints no administrator key; `adminKey` is then empty).
 */
export async function startOccUp(dir: string, env: NodeJS.ProcessEnv, options: { firstOnDatabase?: boolean } = {}): Promise<RunningOccUp> {
  const first = options.firstOnDatabase ?? true;
  const up: ChildProcess = spawn(process.execPath, [OCC_BIN, 'up', '--data-dir', join(dir, 'data'), '--port', '0', '--no-context'], { env });
  let banner = '';
  const server = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`occ up did not start:\n${banner}`)), 120_000);
    const onData = (chunk: Buffer) => {
      banner += chunk;
      const match = /OCC is listening on (http:\/\/\S+)/.exec(banner);
      if (match && (!first || /Administrator API key: .*\n/.test(banner))) {
        clearTimeout(timer);
        resolve(match[1]!.replace(/\/$/, ''));
      }
    };
    up.stdout!.on('data', onData);
    up.stderr!.on('data', onData);
    up.once('exit', (code) => reject(new Error(`occ up exited ${code}:\n${banner}`)));
  });
  return {
    server,
    adminKey: first ? readFileSync(join(dir, 'data', 'admin-api-key'), 'utf8').trim() : '',
    async stop() {
      if (up.exitCode !== null || up.signalCode !== null) return;
      const exited = new Promise((resolve) => up.once('exit', resolve));
      up.kill('SIGTERM');
      await exited;
    },
  };
}
