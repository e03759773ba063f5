// The floor of the deploy bench: the OpenClaw CLI steps a deploy cannot do without, run
// directly by a script with the runtime's own argv and environment — write the config, the
// npm installs, the registry refresh, `gateway run` until `/readyz` says ready — and nothing else
// (no status server, no install-flag detection, no inspection or config read-back, no queue).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginMap } from '@occ/contracts';
import { translateOpenClawPolicy, type OpenClawCatalog, type OpenClawConfig } from '@occ/policy';
import { freeLoopbackPort } from '../apps/runtime/src/free-port.ts';
import { probeGatewayReady } from '../apps/runtime/src/gateway-probe.ts';
import { installArgs } from '../apps/runtime/src/install-flags.ts';
import { runtimeNetworkEnvironment } from '@occ/host-io/network-env';
import { openclawEnvironment } from '../apps/runtime/src/openclaw-cli.ts';
import { pinnedToolchain } from '../apps/runtime/src/toolchain.ts';

export interface FloorInput {
  dir: string;
  catalog: OpenClawCatalog;
  registryUrl: string;
  selections: PluginMap;
  configuration: OpenClawConfig;
  /** How often the script asks `/readyz` (ms). */
  probeEveryMs: number;
}

export interface FloorFigures {
  totalMs: number;
  steps: Record<string, number>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function runFloor(input: FloorInput): Promise<FloorFigures> {
  const toolchain = pinnedToolchain();
  const home = join(input.dir, 'home');
  const stateDir = join(input.dir, 'state');
  const configPath = join(input.dir, 'openclaw.json');
  for (const d of [home, stateDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const env = openclawEnvironment({
    toolchain,
    path: process.env.PATH ?? '',
    home,
    lang: process.env.LANG ?? 'C.UTF-8',
    stateDir,
    configPath,
    npmRegistry: input.registryUrl,
    network: runtimeNetworkEnvironment(process.env),
  });
  const logFd = openSync(join(input.dir, 'floor.log'), 'a');
  const argv = (args: string[]) => [toolchain.openclawEntry, ...args];
  const cli = (args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(toolchain.nodeBinary, argv(args), { env, stdio: ['ignore', logFd, logFd] });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`openclaw ${args.join(' ')} → exit ${code}`))));
    });
  const steps: Record<string, number> = {};
  const step = async (name: string, run: () => Promise<void> | void) => {
    const started = performance.now();
    await run();
    steps[name] = (steps[name] ?? 0) + performance.now() - started;
  };

  const started = performance.now();
  let gateway: ReturnType<typeof spawn> | null = null;
  try {
    const translation = translateOpenClawPolicy({ catalog: input.catalog, selections: input.selections, baseConfig: input.configuration });
    await step('write-config', () => writeFileSync(configPath, `${JSON.stringify(translation.config, null, 2)}\n`, { mode: 0o600 }));
    // The runtime's install argv on the pinned 2026.9.5: --pin --force --accept-capabilities.
    for (const row of translation.plan.installs) {
      await step('install', () => cli(installArgs(row.package, row.version, { noEnable: false, acceptCapabilities: true })));
    }
    await step('registry-refresh', () => cli(['plugins', 'registry', '--refresh', '--json']));
    const token = randomBytes(24).toString('hex');
    await step('gateway-ready', async () => {
      const port = await freeLoopbackPort();
      gateway = spawn(toolchain.nodeBinary, argv(['gateway', 'run', '--bind', 'loopback', '--port', String(port), '--auth', 'token', '--allow-unconfigured']), {
        env: { ...env, OPENCLAW_GATEWAY_TOKEN: token },
        stdio: ['ignore', logFd, logFd],
      });
      const exited = new Promise<never>((_, reject) => gateway!.once('exit', (code) => reject(new Error(`gateway exited ${code}`))));
      exited.catch(() => undefined);
      for (;;) {
        if (await Promise.race([probeGatewayReady(port, token, AbortSignal.timeout(10_000)), exited])) return;
        await sleep(input.probeEveryMs);
      }
    });
    return { totalMs: performance.now() - started, steps };
  } finally {
    const g = gateway as ReturnType<typeof spawn> | null;
    if (g && g.exitCode === null && g.signalCode === null) {
      const gone = new Promise<void>((resolve) => g.once('exit', () => resolve()));
      g.kill('SIGTERM');
      const timer = setTimeout(() => g.kill('SIGKILL'), 20_000);
      await gone;
      clearTimeout(timer);
    }
    closeSync(logFd);
  }
}
