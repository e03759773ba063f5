import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OCC_BIN } from './occ-up.ts';
import { startTestController, type TestController, type TestControllerOptions } from './test-controller.ts';

export { OCC_BIN };

export interface OccResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliWorld {
  controller: TestController;
  /** The controller's URL (listening on a port from the OS). */
  server: string;
  /** A private config directory: `OCC_CONFIG` points at `configFile`, which holds a context for the admin key. */
  home: string;
  configFile: string;
  /** Spawns the real `occ` binary with this world's config (and `env` on top). */
  occ(args: string[], options?: { stdin?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<OccResult>;
  close(): Promise<void>;
}

/** Runs `occ` as a child process and collects what it printed. */
export function runOcc(args: string[], env: NodeJS.ProcessEnv, options: { stdin?: string; timeoutMs?: number } = {}): Promise<OccResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [OCC_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`occ ${args.join(' ')} did not finish:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * A bootstrapped test controller served over real HTTP, and a config file whose current context
 * signs in as its administrator with the default Namespace.
 */
export async function startCliWorld(options: TestControllerOptions = {}): Promise<CliWorld> {
  const controller = await startTestController(options);
  const server = (await controller.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  const home = mkdtempSync(join(tmpdir(), 'occ-cli-'));
  const configFile = join(home, 'config.json');
  writeFileSync(configFile, JSON.stringify({ currentContext: 'test', contexts: { test: { server, apiKey: controller.adminKey, namespace: 'default' } } }), { mode: 0o600 });
  const baseEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    OCC_CONFIG: configFile,
    NO_COLOR: '1',
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
  };
  return {
    controller,
    server,
    home,
    configFile,
    occ: (args, run = {}) => runOcc(args, { ...baseEnv, ...run.env }, run),
    async close() {
      await controller.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
