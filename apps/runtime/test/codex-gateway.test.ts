import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../src/free-port.ts';
import { OpenClawCli, openclawEnvironment, parseJsonOutput } from '../src/openclaw-cli.ts';
import { processGroupAlive, signalProcessGroup } from '../src/process-group.ts';
import { pinnedToolchain } from '../src/toolchain.ts';

// The pinned official Codex harness plugin (@openclaw/codex) in the pinned OpenClaw gateway,
// talking over WebSocket to a pinned `codex app-server` that the test starts itself, with a
// capability token (the app-server holds only its SHA-256; the gateway reads the token from an
// environment variable). No network, no account, no model: what is proven is loading,
// authentication and the harness's connection. Facts and commands: the codex-gateway notes.
const toolchain = pinnedToolchain();
const running: ChildProcess[] = [];
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'occ-codex-gateway-'));
});
afterAll(async () => {
  for (const child of running.reverse()) await stopGroup(child);
  rmSync(root, { recursive: true, force: true });
});

function packageVersion(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The whole process group (detached child), SIGTERM then SIGKILL; resolves when it is gone. */
async function stopGroup(child: ChildProcess): Promise<void> {
  signalProcessGroup(child.pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (processGroupAlive(child.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  signalProcessGroup(child.pid, 'SIGKILL');
}

/** Collects a child's stdout and stderr; `waitFor` resolves once the text matches. */
function capture(child: ChildProcess) {
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return {
    text: () => text,
    async waitFor(pattern: RegExp, timeoutMs: number): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(text)) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited before ${pattern}:\n${text.slice(-4000)}`);
        if (Date.now() > deadline) throw new Error(`no ${pattern} in ${timeoutMs} ms:\n${text.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
}

/** A raw WebSocket opening handshake: 101 is accepted; otherwise the HTTP status and body. */
function upgrade(port: number, bearer: string | null): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
  };
  if (bearer !== null) headers.Authorization = `Bearer ${bearer}`;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers });
    req.once('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.once('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

/** `codex app-server --listen ws://127.0.0.1:<port> --ws-auth capability-token --ws-token-sha256 <hex>` in a private CODEX_HOME. */
async function startWsAppServer(token: string): Promise<{ port: number; child: ChildProcess }> {
  const home = join(root, `codex-home-${running.length}`);
  mkdirSync(home);
  const port = await freeLoopbackPort();
  const sha256 = createHash('sha256').update(token).digest('hex');
  const child = spawn(
    toolchain.nodeBinary,
    [toolchain.codexEntry, 'app-server', '--listen', `ws://127.0.0.1:${port}`, '--ws-auth', 'capability-token', '--ws-token-sha256', sha256],
    { env: { PATH: `${toolchain.nodeBinDir}:${process.env.PATH ?? ''}`, HOME: home, CODEX_HOME: home }, cwd: home, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  running.push(child);
  await capture(child).waitFor(/listening on: ws:\/\/127\.0\.0\.1:\d+/, 30_000);
  return { port, child };
}

describe('the pinned @openclaw/codex harness plugin', () => {
  it('is 2026.9.5, shares the one pinned @openai/codex 0.154.0, and resolves `openclaw` to the pinned OpenClaw', () => {
    expect(packageVersion(toolchain.codexPluginDir)).toBe('2026.9.5');
    expect(JSON.parse(readFileSync(join(toolchain.codexPluginDir, 'package.json'), 'utf8')).dependencies['@openai/codex']).toBe('0.154.0');
    // Deduplicated: no copy of its own, so Node resolves the codexEntry the runtime runs.
    expect(existsSync(join(toolchain.codexPluginDir, 'node_modules', '@openai'))).toBe(false);
    expect(packageVersion(join(toolchain.codexDir, 'node_modules', '@openai', 'codex'))).toBe('0.154.0');
    // The installer's link, as OpenClaw makes it for plugins it installs from npm.
    expect(realpathSync(join(toolchain.codexPluginDir, 'node_modules', 'openclaw'))).toBe(realpathSync(join(toolchain.openclawDir, 'node_modules', 'openclaw')));
  });

  it('a ws app-server with a capability token accepts that bearer token and refuses a wrong or missing one with 401', async () => {
    const token = randomBytes(32).toString('base64url');
    const { port } = await startWsAppServer(token);
    expect(await upgrade(port, token)).toEqual({ status: 101, body: '' });
    expect(await upgrade(port, `${token}x`)).toEqual({ status: 401, body: 'invalid websocket bearer token' });
    expect(await upgrade(port, null)).toEqual({ status: 401, body: 'missing websocket bearer token' });
  }, 60_000);

  it('loads in a gateway with a revision-private state dir, and its harness connects to that app-server with the token from the environment', async () => {
    const token = randomBytes(32).toString('base64url');
    const { port: appServerPort } = await startWsAppServer(token);

    // The revision's OpenClaw state: the pinned package linked into its extensions dir (origin
    // "global": plugins.load.paths would be origin "config", whose harness registration OpenClaw refuses).
    const stateDir = join(root, 'state');
    mkdirSync(join(stateDir, 'extensions'), { recursive: true });
    symlinkSync(toolchain.codexPluginDir, join(stateDir, 'extensions', 'codex'), 'dir');
    const home = join(root, 'home');
    mkdirSync(home);
    const configPath = join(root, 'openclaw.json');
    const config = {
      plugins: {
        allow: ['codex'],
        entries: {
          codex: {
            enabled: true,
            config: {
              appServer: { transport: 'websocket', url: `ws://127.0.0.1:${appServerPort}`, authToken: { source: 'env', provider: 'default', id: 'OCC_CODEX_APP_SERVER_TOKEN' } },
              codexPlugins: { enabled: true, allow_all_plugins: false, plugins: { 'good@occ-fixtures': { enabled: true, marketplaceName: 'occ-fixtures', pluginName: 'good' } } },
            },
          },
        },
      },
    };
    writeFileSync(configPath, JSON.stringify(config, null, 2), { mode: 0o600 });
    const env = openclawEnvironment({ toolchain, path: process.env.PATH ?? '', home, lang: 'C.UTF-8', stateDir, configPath, npmRegistry: null, network: {} });
    const cli = new OpenClawCli(toolchain, env);

    const inspected = await cli.run(['plugins', 'inspect', 'codex', '--json'], { timeoutMs: 60_000 });
    expect(inspected.kind).toBe('exited');
    const parsed = parseJsonOutput(inspected.kind === 'exited' ? inspected.stdout : '');
    const plugin = parsed.ok ? (parsed.value as { plugin: Record<string, unknown> }).plugin : undefined;
    expect(plugin).toMatchObject({ id: 'codex', version: '2026.9.5', status: 'loaded', enabled: true, origin: 'global', rootDir: toolchain.codexPluginDir });

    const gatewayPort = await freeLoopbackPort();
    const { command, args } = cli.argv(['gateway', 'run', '--bind', 'loopback', '--port', String(gatewayPort), '--auth', 'token', '--allow-unconfigured']);
    const gateway = spawn(command, args, {
      env: { ...env, OPENCLAW_GATEWAY_TOKEN: randomBytes(24).toString('hex'), OCC_CODEX_APP_SERVER_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.push(gateway);
    const output = capture(gateway);
    // WebSocket transport connects at gateway start, not on the first turn.
    await output.waitFor(/codex app-server remote WebSocket connection is healthy/, 150_000);
    expect(output.text()).toMatch(/http server listening \([0-9]+ plugins: [^)]*\bcodex\b/);
    // The harness registered (origin "config" gets both of these refusals instead).
    expect(output.text()).not.toContain('native compaction requires the registry-owned "codex" harness');
    expect(output.text()).not.toContain('only bundled plugins can claim reserved command ownership');
    expect(output.text()).not.toContain(token);
    await stopGroup(gateway);
  }, 240_000);
});
