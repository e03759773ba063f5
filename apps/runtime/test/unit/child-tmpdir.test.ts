import { describe, expect, it } from 'vitest';
import { codexProcessEnvironment } from '../../src/codex/app-server-env.ts';
import { readRuntimeEnvironment } from '../../src/environment.ts';
import { openclawEnvironment } from '../../src/openclaw-cli.ts';
import { pinnedToolchain } from '../../src/toolchain.ts';

// A confined runtime's /tmp is a small private tmpfs; the Agent's own temp directory (the
// runtime's TMPDIR) is where temp files belong. OpenClaw's Codex plugin filled that /tmp at load
// (ENOSPC, the harness "unavailable" at the turn) while children were given no TMPDIR.
describe("the temp directory of the runtime's children", () => {
  it("[S-2] OpenClaw (CLI, npm, gateway) and the Codex app-server get the runtime's TMPDIR", () => {
    const read = readRuntimeEnvironment({
      OCC_RUNTIME_STATUS_TOKEN: 's'.repeat(24),
      OCC_RUNTIME_GATEWAY_TOKEN: 'g'.repeat(24),
      OCC_RUNTIME_REVISION_DIR: '/rev',
      OCC_RUNTIME_MANIFEST: '/rev/manifest.json',
      OCC_RUNTIME_GATEWAY_ADDRESS: '127.0.0.1',
      OCC_RUNTIME_GATEWAY_PORT: '18789',
      OCC_RUNTIME_STATE_DIR: '/state',
      TMPDIR: '/agent/tmp',
    });
    if (!('tmpDir' in read.result)) throw new Error(`runtime environment refused: ${read.result.message}`);
    const { tmpDir, path, home, lang, network } = read.result;
    expect(tmpDir).toBe('/agent/tmp');
    const toolchain = pinnedToolchain();
    expect(openclawEnvironment({ toolchain, path, home, lang, tmpDir, stateDir: '/state', configPath: '/rev/openclaw.json', npmRegistry: null, network }).TMPDIR).toBe(
      '/agent/tmp',
    );
    expect(
      codexProcessEnvironment({ toolchain, path, home, lang, tmpDir, codexHome: '/rev/codex-home', network, accessToken: null, chatgptBaseUrl: null, authBaseUrl: null }).TMPDIR,
    ).toBe('/agent/tmp');
  });
});
