import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readRuntimeEnvironment } from '../../../runtime/src/environment.ts';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { codexHostedDiscoveryOptionsFromEnv } from '../../src/drivers/plugin/codex-hosted/index.ts';
import { CodexRuntimeSettingError, codexRuntimeSettings, codexRuntimeVariables } from '../../src/drivers/compute/runtime-contract/codex-settings.ts';
import { agentPaths, revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { runtimeEnvironment } from '../../src/drivers/compute/runtime-contract/runtime-env.ts';

// The Installation's Codex settings → the variables every Codex runtime reads (OCC_RUNTIME_CODEX_*):
// one source for discovery and runtime, validated at startup. No processes.

const dir = mkdtempSync(join(tmpdir(), 'occ-codex-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = fileURLToPath(new URL('../../../../test-support/codex-marketplace', import.meta.url));
/** A directory holding a (minimal) local marketplace index. */
function marketplace(name: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, '.agents', 'plugins'), { recursive: true });
  writeFileSync(join(root, '.agents', 'plugins', 'marketplace.json'), '{"name":"m","plugins":[]}');
  return root;
}

describe('codexRuntimeSettings', () => {
  it('unset: nothing reaches the runtime, which keeps Codex defaults (the same services discovery defaults to)', () => {
    const settings = codexRuntimeSettings({});
    expect(settings).toEqual({ marketplaces: [], chatgptBaseUrl: null, authBaseUrl: null, modelBaseUrl: null });
    expect(codexRuntimeVariables(settings)).toEqual({});
    expect(codexRuntimeSettings({ OCC_CODEX_MARKETPLACES: '', OCC_CODEX_CATALOG_URL: '', OCC_CODEX_IDENTITY_URL: '', OCC_CODEX_MODEL_URL: '' })).toEqual(settings);
  });

  it.each([
    ['https://chatgpt.com/backend-api/', 'https://auth.openai.com/', 'https://chatgpt.com/backend-api', 'https://auth.openai.com/api/accounts'],
    ['https://proxy.example.test/backend-api', 'https://id.example.test', 'https://proxy.example.test/backend-api', 'https://id.example.test/api/accounts'],
    [
      'https://localhost:8443/codex/backend-api//',
      'https://id.example.test/tenant-a/',
      'https://localhost:8443/codex/backend-api',
      'https://id.example.test/tenant-a/api/accounts',
    ],
    ['https://id.example.test:9443/', 'https://id.example.test:9443/', 'https://id.example.test:9443', 'https://id.example.test:9443/api/accounts'],
  ])('the catalog %s and the identity service %s become the ChatGPT base %s and the auth API base %s', (catalog, identity, chatgpt, auth) => {
    const settings = codexRuntimeSettings({ OCC_CODEX_CATALOG_URL: catalog, OCC_CODEX_IDENTITY_URL: identity });
    expect(codexRuntimeVariables(settings)).toEqual({ OCC_RUNTIME_CODEX_CHATGPT_BASE_URL: chatgpt, OCC_RUNTIME_CODEX_AUTH_BASE_URL: auth });
  });

  it('one source of truth: the runtime reaches whoami exactly where discovery does', () => {
    const env = { OCC_CODEX_CATALOG_URL: 'https://proxy.example.test/backend-api', OCC_CODEX_IDENTITY_URL: 'https://id.example.test/tenant-a' };
    const discovery = codexHostedDiscoveryOptionsFromEnv(env);
    const { authBaseUrl, chatgptBaseUrl } = codexRuntimeSettings(env);
    // Discovery: `api/accounts/v1/user-auth-credential/whoami` under the identity base (hosted-identity.ts); Codex: `<auth base>/v1/…`.
    expect(`${authBaseUrl}/v1/user-auth-credential/whoami`).toBe(new URL('api/accounts/v1/user-auth-credential/whoami', `${discovery.identityBaseUrl}/`).href);
    expect(`${chatgptBaseUrl}/`).toBe(`${discovery.catalogBaseUrl}/`);
  });

  it("the model endpoint becomes Codex's openai_base_url without its trailing slash; like the other bases it must be HTTPS without credentials (the codex_pat is its bearer token)", () => {
    expect(codexRuntimeVariables(codexRuntimeSettings({ OCC_CODEX_MODEL_URL: 'https://models.example.test/v1/' }))).toEqual({
      OCC_RUNTIME_CODEX_MODEL_BASE_URL: 'https://models.example.test/v1',
    });
    expect(() => codexRuntimeSettings({ OCC_CODEX_MODEL_URL: 'http://models.example.test/v1' })).toThrow(/^OCC_CODEX_MODEL_URL must be an https:\/\/ URL/);
    expect(() => codexRuntimeSettings({ OCC_CODEX_MODEL_URL: 'https://k:canary-pw@models.example.test/v1' })).toThrow(
      /^OCC_CODEX_MODEL_URL must be an https:\/\/ URL without credentials/,
    );
  });

  it('takes colon-separated absolute marketplace directories (empty entries ignored, trailing slashes dropped)', () => {
    const a = marketplace('a');
    const b = marketplace('b');
    const settings = codexRuntimeSettings({ OCC_CODEX_MARKETPLACES: `${a}/::${b}:${fixture}:` });
    expect(settings.marketplaces).toEqual([a, b, fixture]);
    expect(codexRuntimeVariables(settings)).toEqual({ OCC_RUNTIME_CODEX_MARKETPLACES: `${a}:${b}:${fixture}` });
  });

  it.each([
    ['a relative directory', { OCC_CODEX_MARKETPLACES: 'test-support/codex-marketplace' }, /^OCC_CODEX_MARKETPLACES must list absolute directories/],
    [
      'a directory without a marketplace index',
      { OCC_CODEX_MARKETPLACES: dir },
      /^OCC_CODEX_MARKETPLACES: .* holds no local Codex marketplace \(\.agents\/plugins\/marketplace\.json is missing\)/,
    ],
    ['a missing directory', { OCC_CODEX_MARKETPLACES: join(dir, 'absent') }, /^OCC_CODEX_MARKETPLACES: .* holds no local Codex marketplace/],
    ['a plain-HTTP catalog', { OCC_CODEX_CATALOG_URL: 'http://chatgpt.example.test/backend-api' }, /^OCC_CODEX_CATALOG_URL must be an https:\/\/ URL/],
    [
      'a catalog with credentials',
      { OCC_CODEX_CATALOG_URL: 'https://user:canary-pw@chatgpt.example.test/' },
      /^OCC_CODEX_CATALOG_URL must be an https:\/\/ URL without credentials/,
    ],
    [
      'an identity service with a query',
      { OCC_CODEX_IDENTITY_URL: 'https://id.example.test/?tenant=a' },
      /^OCC_CODEX_IDENTITY_URL must be an https:\/\/ URL without credentials, query or fragment/,
    ],
    ['an identity service that is not a URL', { OCC_CODEX_IDENTITY_URL: 'auth.openai.com' }, /^OCC_CODEX_IDENTITY_URL must be an https:\/\/ URL\.$/],
  ])('refuses %s at startup, naming the setting', (_what, env, message) => {
    expect(() => codexRuntimeSettings(env)).toThrow(CodexRuntimeSettingError);
    expect(() => codexRuntimeSettings(env)).toThrow(message);
    try {
      codexRuntimeSettings(env);
    } catch (error) {
      expect((error as Error).message).not.toContain('canary-pw');
    }
  });

  it('the local ComputeDriver is not built with a bad Codex setting (occ up / occ worker stop there)', async () => {
    await expect(createComputeDriver('local', { dataDir: dir, env: { OCC_CODEX_MARKETPLACES: 'relative/dir' } })).rejects.toThrow(/OCC_CODEX_MARKETPLACES/);
    await expect(createComputeDriver('local', { dataDir: dir, env: { OCC_CODEX_IDENTITY_URL: 'http://id.example.test/' } })).rejects.toThrow(/OCC_CODEX_IDENTITY_URL/);
    expect((await createComputeDriver('local', { dataDir: dir, env: { OCC_CODEX_MARKETPLACES: fixture } }))?.id).toBe('local');
  });
});

describe('through the runtime environment', () => {
  const root = join(dir, 'compute');
  const agentId = `agt_${randomUUID()}`;
  const build = (codex: ReturnType<typeof codexRuntimeSettings> | undefined) =>
    runtimeEnvironment({
      base: { PATH: '/usr/bin', OCC_CODEX_MARKETPLACES: fixture, OCC_CODEX_CATALOG_URL: 'https://sneaked-in.example/' },
      agent: agentPaths(root, agentId),
      revision: revisionPaths(root, agentId, `rev_${randomUUID()}`),
      statusToken: 's'.repeat(24),
      gatewayToken: 'g'.repeat(24),
      transportSecret: 't'.repeat(43),
      codex,
      network: {},
      secrets: {},
    });

  it('the runtime reads what the driver hands it: marketplaces as plugin/list cwds, the two hosted bases, the model endpoint', () => {
    const env = build(
      codexRuntimeSettings({
        OCC_CODEX_MARKETPLACES: fixture,
        OCC_CODEX_CATALOG_URL: 'https://localhost:8443/backend-api/',
        OCC_CODEX_IDENTITY_URL: 'https://localhost:8443/',
        OCC_CODEX_MODEL_URL: 'https://localhost:8444/v1',
      }),
    );
    expect(env).toMatchObject({
      OCC_RUNTIME_CODEX_MARKETPLACES: fixture,
      OCC_RUNTIME_CODEX_CHATGPT_BASE_URL: 'https://localhost:8443/backend-api',
      OCC_RUNTIME_CODEX_AUTH_BASE_URL: 'https://localhost:8443/api/accounts',
    });
    // The controller's own OCC_CODEX_* never pass as such.
    expect(Object.keys(env).filter((name) => name.startsWith('OCC_CODEX_'))).toEqual([]);
    const read = readRuntimeEnvironment({ ...env });
    if (!('codexMarketplaces' in read.result)) throw new Error(`runtime environment refused: ${read.result.message}`);
    expect(read.result).toMatchObject({
      codexMarketplaces: [fixture],
      codexChatgptBaseUrl: 'https://localhost:8443/backend-api',
      codexAuthBaseUrl: 'https://localhost:8443/api/accounts',
      codexModelBaseUrl: 'https://localhost:8444/v1',
    });
  });

  it('without settings, no OCC_RUNTIME_CODEX_* variable (the runtime keeps Codex defaults)', () => {
    for (const env of [build(undefined), build(codexRuntimeSettings({}))]) {
      expect(Object.keys(env).filter((name) => name.startsWith('OCC_RUNTIME_CODEX_') || name.startsWith('OCC_CODEX_'))).toEqual([]);
    }
  });
});
