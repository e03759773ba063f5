import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppServerError, type AppServerClient } from '../src/codex/app-server-client.ts';
import { processGroupAlive } from '@occ/host-io/process-group';
import { pinnedToolchain } from '../src/toolchain.ts';
import { startPinnedAppServer } from './support/pinned-app-server.ts';

// The pinned `codex app-server` itself (npm ci installs it with the runtime toolchain): it runs
// here with no network and no account, in a private CODEX_HOME, with nothing inherited but PATH.
const toolchain = pinnedToolchain();
let home: string;
let client: AppServerClient;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'occ-codex-home-'));
  client = await startPinnedAppServer(home);
}, 60_000);
afterAll(async () => {
  await client?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('the pinned codex app-server', () => {
  it('is the version @openclaw/codex 2026.9.5 depends on', () => {
    const version = execFileSync(toolchain.nodeBinary, [toolchain.codexEntry, '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', CODEX_HOME: home } });
    expect(version.trim()).toBe('codex-cli 0.154.0');
  });

  it('the pinned @openclaw/codex 2026.9.5 shares it (one copy) and resolves `openclaw` to the pinned OpenClaw', () => {
    const packageJson = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    expect(packageJson(toolchain.codexPluginDir).version).toBe('2026.9.5');
    expect(packageJson(toolchain.codexPluginDir).dependencies['@openai/codex']).toBe('0.154.0');
    // Deduplicated: no copy of its own, so the plugin and the runtime run the same binary.
    expect(existsSync(join(toolchain.codexPluginDir, 'node_modules', '@openai'))).toBe(false);
    // The installer's link, as OpenClaw makes it for plugins it installs from npm (the plugin imports openclaw/plugin-sdk).
    expect(realpathSync(join(toolchain.codexPluginDir, 'node_modules', 'openclaw'))).toBe(realpathSync(join(toolchain.openclawDir, 'node_modules', 'openclaw')));
  });

  it('answers initialize in the private CODEX_HOME, and reads its configuration, requirements and plugins with no plugin installed', async () => {
    expect(client.initialized).toMatchObject({ codexHome: home, platformOs: 'linux' });
    const config = await client.request<{ config: Record<string, unknown> }>('config/read', { includeLayers: true });
    expect(config.config).toMatchObject({ apps: null, approvals_reviewer: null });
    expect(await client.request('configRequirements/read', {})).toEqual({ requirements: null });
    expect(await client.request('plugin/list', {})).toEqual({ marketplaces: [], marketplaceLoadErrors: [], featuredPluginIds: [] });
  });

  it("an unknown method is an `rpc` error with its code; the server's text stays out of the message", async () => {
    const error = await client.request('occ/no-such-method', {}).then(
      () => undefined,
      (e: unknown) => e as AppServerError,
    );
    expect(error).toBeInstanceOf(AppServerError);
    expect(error!.kind).toBe('rpc');
    expect(typeof error!.rpcCode).toBe('number');
    expect(error!.message).toBe(`codex app-server occ/no-such-method: error ${error!.rpcCode}`);
  });

  it('close stops the whole process group (the Node wrapper and the platform binary), and pending work fails', async () => {
    const own = await startPinnedAppServer(home);
    const pid = own.pid!;
    expect(processGroupAlive(pid)).toBe(true);
    await own.close();
    expect(processGroupAlive(pid)).toBe(false);
    expect(((await own.request('config/read').catch((e: unknown) => e)) as AppServerError).kind).toBe('aborted');
  });

  it('close also stops the platform binary when the Node wrapper was killed on its own (it would linger for a while)', async () => {
    const own = await startPinnedAppServer(home);
    const pid = own.pid!;
    process.kill(pid, 'SIGKILL');
    expect((await own.exited).signal).toBe('SIGKILL');
    expect(processGroupAlive(pid)).toBe(true);
    await own.close();
    expect(processGroupAlive(pid)).toBe(false);
  });
});
