import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { readRuntimeEnvironment } from '../../../runtime/src/environment.ts';
import { pickNetworkEnvironment, RUNTIME_NETWORK_VARIABLES, runtimeNetworkEnvironment, withNetworkOverrides } from '@occ/host-io/network-env';
import { openclawEnvironment } from '../../../runtime/src/openclaw-cli.ts';
import type { PinnedToolchain } from '../../../runtime/src/toolchain.ts';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { agentPaths, revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { RuntimeNetworkSettingError, runtimeNetworkSettings } from '../../src/drivers/compute/runtime-contract/network-settings.ts';
import { runtimeEnvironment } from '../../src/drivers/compute/runtime-contract/runtime-env.ts';

// The rule that decides which variables of OCC's environment reach a runtime (and through it npm,
// the OpenClaw CLI and the gateway): the allowlist, OCC's overrides, startup validation. No processes.

const dir = mkdtempSync(join(tmpdir(), 'occ-network-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

const CANARY = 'canary-7f3a9c';
/** Variables of a controller's environment that must never reach a runtime. */
const CANARIES: Record<string, string> = {
  DATABASE_URL: `postgres://u:${CANARY}@db/occ`,
  OCC_SECRET_KEY: `${CANARY}-secret-key`,
  OCC_DISCOVERY_CURSOR_KEY: `${CANARY}-cursor`,
  OCC_CANARY: CANARY,
  NPM_TOKEN: `${CANARY}-npm-token`,
  'npm_config_//registry.npmjs.org/:_authToken': `${CANARY}-auth-token`,
  NODE_AUTH_TOKEN: `${CANARY}-node-auth`,
  AWS_SECRET_ACCESS_KEY: `${CANARY}-aws`,
  NODE_OPTIONS: `--require /tmp/${CANARY}.js`,
  GIT_SSL_CAINFO: `/tmp/${CANARY}.pem`,
  OCC_RUNTIME_PROXY_CANARY: CANARY,
};

/** One distinct value per allowlisted variable. */
const ALL_ALLOWED = Object.fromEntries(RUNTIME_NETWORK_VARIABLES.map((name) => [name, `value-of-${name}`]));

const expectNoCanary = (env: Record<string, string>) => {
  for (const [name, value] of Object.entries(env)) {
    expect(value, name).not.toContain(CANARY);
    expect(Object.keys(CANARIES)).not.toContain(name);
  }
};

describe('the allowlist', () => {
  it('names the standard CA, proxy and npm variables in the spellings tools read', () => {
    for (const name of ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR']) expect(RUNTIME_NETWORK_VARIABLES).toContain(name);
    for (const name of [
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'NO_PROXY',
      'npm_config_registry',
      'npm_config_cafile',
      'npm_config_ca',
      'npm_config_strict_ssl',
      'npm_config_https_proxy',
      'npm_config_proxy',
      'npm_config_noproxy',
    ]) {
      expect(RUNTIME_NETWORK_VARIABLES).toContain(name.toUpperCase());
      expect(RUNTIME_NETWORK_VARIABLES).toContain(name.toLowerCase());
    }
  });

  it('passes every allowlisted variable as it is, and nothing else of the environment', () => {
    expect(pickNetworkEnvironment({ ...CANARIES, ...ALL_ALLOWED, PATH: '/usr/bin', HOME: '/root' })).toEqual(ALL_ALLOWED);
  });

  it('drops empty values (an empty NODE_EXTRA_CA_CERTS is not a setting)', () => {
    expect(pickNetworkEnvironment({ NODE_EXTRA_CA_CERTS: '', HTTPS_PROXY: 'http://proxy:3128' })).toEqual({ HTTPS_PROXY: 'http://proxy:3128' });
  });
});

describe('OCC overrides', () => {
  it('without overrides the picked variables are the result', () => {
    expect(runtimeNetworkEnvironment({ ...ALL_ALLOWED, ...CANARIES })).toEqual(ALL_ALLOWED);
  });

  it('the registry replaces every spelling of npm_config_registry', () => {
    const out = withNetworkOverrides(
      { NPM_CONFIG_REGISTRY: 'https://upper.example/', npm_config_registry: 'https://lower.example/', SSL_CERT_DIR: '/etc/ssl/certs' },
      { npmRegistry: 'https://mirror.example/npm/' },
    );
    expect(out).toEqual({ npm_config_registry: 'https://mirror.example/npm/', SSL_CERT_DIR: '/etc/ssl/certs' });
  });

  it('the CA file becomes NODE_EXTRA_CA_CERTS and removes npm ca/cafile (which would make npm trust only them); OpenSSL settings stay', () => {
    const inherited = {
      NODE_EXTRA_CA_CERTS: '/etc/machine-ca.pem',
      npm_config_cafile: '/a.pem',
      NPM_CONFIG_CAFILE: '/b.pem',
      npm_config_ca: 'PEM',
      NPM_CONFIG_CA: 'PEM',
      SSL_CERT_FILE: '/etc/ssl/cert.pem',
      npm_config_strict_ssl: 'true',
    };
    expect(withNetworkOverrides(inherited, { caFile: '/etc/occ/runtime-ca.pem' })).toEqual({
      NODE_EXTRA_CA_CERTS: '/etc/occ/runtime-ca.pem',
      SSL_CERT_FILE: '/etc/ssl/cert.pem',
      npm_config_strict_ssl: 'true',
    });
  });

  it('the proxy sets both spellings of HTTPS_PROXY/HTTP_PROXY and npm proxies, replacing inherited ones, and keeps loopback off the proxy', () => {
    const inherited = {
      HTTPS_PROXY: 'http://old:1',
      http_proxy: 'http://old:2',
      NPM_CONFIG_PROXY: 'http://old:3',
      npm_config_https_proxy: 'http://old:4',
      NO_PROXY: 'internal.example, 127.0.0.1',
      ALL_PROXY: 'socks5://keep:1080',
    };
    const proxy = 'http://user:pw@proxy.example:3128';
    expect(withNetworkOverrides(inherited, { proxy })).toEqual({
      HTTPS_PROXY: proxy,
      https_proxy: proxy,
      HTTP_PROXY: proxy,
      http_proxy: proxy,
      npm_config_proxy: proxy,
      npm_config_https_proxy: proxy,
      NO_PROXY: 'internal.example,127.0.0.1,localhost,::1',
      no_proxy: 'internal.example,127.0.0.1,localhost,::1',
      npm_config_noproxy: 'internal.example,127.0.0.1,localhost,::1',
      ALL_PROXY: 'socks5://keep:1080',
    });
  });

  it('does not change its input', () => {
    const inherited = Object.freeze({ NPM_CONFIG_REGISTRY: 'https://upper.example/' });
    withNetworkOverrides(inherited, { npmRegistry: 'https://x.example/', caFile: '/x.pem', proxy: 'http://p:1' });
    expect(inherited).toEqual({ NPM_CONFIG_REGISTRY: 'https://upper.example/' });
  });
});

describe('OCC settings read at startup', () => {
  const ca = file('ca.pem', `${rootCertificates[0]}\n${rootCertificates[1]}\n`);

  it('OCC_NPM_REGISTRY, OCC_RUNTIME_CA_FILE and OCC_RUNTIME_PROXY win over the inherited variables; canaries stay behind', () => {
    const env = { ...CANARIES, ...ALL_ALLOWED, OCC_NPM_REGISTRY: 'https://mirror.example/', OCC_RUNTIME_CA_FILE: ca, OCC_RUNTIME_PROXY: 'http://proxy.example:3128' };
    const out = runtimeNetworkSettings(env);
    expect(out).toMatchObject({
      npm_config_registry: 'https://mirror.example/',
      NODE_EXTRA_CA_CERTS: ca,
      HTTPS_PROXY: 'http://proxy.example:3128',
      https_proxy: 'http://proxy.example:3128',
      npm_config_https_proxy: 'http://proxy.example:3128',
    });
    for (const name of ['NPM_CONFIG_REGISTRY', 'npm_config_cafile', 'NPM_CONFIG_CAFILE', 'npm_config_ca', 'NPM_CONFIG_CA']) expect(out).not.toHaveProperty(name);
    expect(out.SSL_CERT_FILE).toBe(ALL_ALLOWED.SSL_CERT_FILE);
    for (const name of Object.keys(out)) expect(RUNTIME_NETWORK_VARIABLES).toContain(name);
    expectNoCanary(out);
  });

  it('an empty OCC setting is no setting', () => {
    expect(runtimeNetworkSettings({ NODE_EXTRA_CA_CERTS: '/machine.pem', OCC_RUNTIME_CA_FILE: '', OCC_RUNTIME_PROXY: '', OCC_NPM_REGISTRY: '' })).toEqual({
      NODE_EXTRA_CA_CERTS: '/machine.pem',
    });
  });

  it.each([
    ['a missing file', join(dir, 'absent.pem'), /OCC_RUNTIME_CA_FILE \(.*absent\.pem\) cannot be read: ENOENT/],
    ['a directory', dir, /OCC_RUNTIME_CA_FILE .* cannot be read: EISDIR/],
    ['a file without a certificate', file('not-pem.txt', 'just text\n'), /holds no PEM certificate/],
    ['a private key only', file('key.pem', '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIE\n-----END PRIVATE KEY-----\n'), /holds no PEM certificate/],
    [
      'a corrupt second certificate',
      file('corrupt.pem', `${rootCertificates[0]}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`),
      /certificate 2 of 2 is not a valid X\.509 certificate/,
    ],
  ])('OCC_RUNTIME_CA_FILE naming %s is a startup error', (_what, path, message) => {
    expect(() => runtimeNetworkSettings({ OCC_RUNTIME_CA_FILE: path })).toThrow(RuntimeNetworkSettingError);
    expect(() => runtimeNetworkSettings({ OCC_RUNTIME_CA_FILE: path })).toThrow(message);
  });

  it.each(['socks5://user:pw-canary-7f3a9c@proxy:1080', 'proxy.example:3128', 'http//pw-canary-7f3a9c'])(
    'OCC_RUNTIME_PROXY %s is a startup error that does not echo the value',
    (proxy) => {
      let error: unknown;
      try {
        runtimeNetworkSettings({ OCC_RUNTIME_PROXY: proxy });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(RuntimeNetworkSettingError);
      expect((error as Error).message).toBe('OCC_RUNTIME_PROXY must be an http:// or https:// URL.');
    },
  );

  it.each([
    ['OCC_NPM_REGISTRY', 'https://bot:tok-canary-7f3a9c@registry.example/', /OCC_NPM_REGISTRY must not carry credentials/],
    ['npm_config_registry', 'https://bot:tok-canary-7f3a9c@registry.example/', /npm_config_registry must not carry credentials/],
    ['NPM_CONFIG_REGISTRY', 'https://tok-canary-7f3a9c@registry.example/', /NPM_CONFIG_REGISTRY must not carry credentials/],
    ['OCC_NPM_REGISTRY', 'registry.example', /OCC_NPM_REGISTRY must be an http/],
  ])('a registry in %s carrying credentials or not a URL is a startup error that does not echo it', (name, value, message) => {
    let error: unknown;
    try {
      runtimeNetworkSettings({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RuntimeNetworkSettingError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('canary');
  });

  it('the local ComputeDriver is not built with a bad setting (occ up / occ worker stop there)', async () => {
    await expect(createComputeDriver('local', { dataDir: dir, env: { OCC_RUNTIME_CA_FILE: join(dir, 'absent.pem') } })).rejects.toThrow(/OCC_RUNTIME_CA_FILE/);
    expect((await createComputeDriver('local', { dataDir: dir, env: { OCC_RUNTIME_CA_FILE: ca } }))?.id).toBe('local');
  });
});

describe('through the runtime environment', () => {
  const controllerEnv = {
    ...CANARIES,
    PATH: '/usr/local/bin:/usr/bin',
    LANG: 'C.UTF-8',
    NODE_EXTRA_CA_CERTS: '/etc/ssl/machine.pem',
    HTTPS_PROXY: 'http://proxy.example:3128',
    NPM_CONFIG_REGISTRY: 'https://inherited.example/',
  };
  const root = join(dir, 'compute');
  const agentId = `agt_${randomUUID()}`;
  const built = runtimeEnvironment({
    base: controllerEnv,
    agent: agentPaths(root, agentId),
    revision: revisionPaths(root, agentId, `rev_${randomUUID()}`),
    statusToken: 's'.repeat(24),
    gatewayToken: 'g'.repeat(24),
    transportSecret: 't'.repeat(43),
    npmRegistry: 'https://mirror.example/',
    network: runtimeNetworkSettings({ ...controllerEnv, OCC_NPM_REGISTRY: 'https://mirror.example/' }),
    secrets: {},
  });

  it('the driver hands a runtime the network variables and its contract, nothing else of the controller', () => {
    const contract = [
      'PATH',
      'HOME',
      'TMPDIR',
      'LANG',
      'OCC_RUNTIME_MANIFEST',
      'OCC_RUNTIME_REVISION_DIR',
      'OCC_RUNTIME_STATE_DIR',
      'OCC_RUNTIME_STATUS_TOKEN',
      'OCC_RUNTIME_GATEWAY_TOKEN',
      'OCC_RUNTIME_TRANSPORT_SECRET',
      'OCC_RUNTIME_NPM_REGISTRY',
    ];
    expect(Object.keys(built).sort()).toEqual([...contract, 'NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY', 'npm_config_registry'].sort());
    expect(built).toMatchObject({ NODE_EXTRA_CA_CERTS: '/etc/ssl/machine.pem', HTTPS_PROXY: 'http://proxy.example:3128', npm_config_registry: 'https://mirror.example/' });
    expectNoCanary(built);
  });

  it('the runtime passes them on to every OpenClaw process (npm, CLI, gateway), with its registry winning', () => {
    const read = readRuntimeEnvironment({ ...built, NPM_CONFIG_REGISTRY: 'https://sneaked-in.example/', OCC_CANARY: CANARY });
    if (!('network' in read.result)) throw new Error(`runtime environment refused: ${read.result.message}`);
    expect(read.result.network).toEqual({
      NODE_EXTRA_CA_CERTS: '/etc/ssl/machine.pem',
      HTTPS_PROXY: 'http://proxy.example:3128',
      npm_config_registry: 'https://mirror.example/',
      NPM_CONFIG_REGISTRY: 'https://sneaked-in.example/',
    });
    const toolchain: PinnedToolchain = {
      nodeDir: '/pinned/node',
      nodeBinDir: '/pinned/node/bin',
      nodeBinary: '/pinned/node/bin/node',
      openclawDir: '/pinned/openclaw',
      openclawEntry: '/pinned/openclaw/openclaw.mjs',
      openclawGatewayRuntime: '/pinned/openclaw/dist/plugin-sdk/gateway-runtime.js',
      openclawRunMain: '/pinned/openclaw/dist/cli/run-main.js',
      openclawConfigSnapshot: '/pinned/openclaw/dist/plugin-sdk/runtime-config-snapshot.js',
      codexDir: '/pinned/codex',
      codexEntry: '/pinned/codex/codex.js',
      codexPluginDir: '/pinned/codex/node_modules/@openclaw/codex',
      installHelp: null,
      codexHarness: { spec: '@openclaw/codex@2026.9.5', integrity: 'sha512-x', npmCache: '/pinned/codex/npm-cache', registry: 'https://registry.npmjs.org/' },
    };
    const { path, home, lang, stateDir, npmRegistry, network } = read.result;
    const env = openclawEnvironment({ toolchain, path, home, lang, stateDir, configPath: '/rev/openclaw.json', npmRegistry, network });
    expect(env).toMatchObject({ NODE_EXTRA_CA_CERTS: '/etc/ssl/machine.pem', HTTPS_PROXY: 'http://proxy.example:3128', npm_config_registry: 'https://mirror.example/' });
    expect(env).not.toHaveProperty('NPM_CONFIG_REGISTRY');
    expect(Object.keys(env).filter((name) => name.startsWith('OCC_'))).toEqual([]);
    expectNoCanary(env);
  });
});
