import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OCC_BIN, startCliWorld, type CliWorld, type OccResult } from '../../../../test-support/cli-world.ts';
import { startOidcProvider, type OidcTestProvider } from '../../../../test-support/oidc-provider.ts';

const SESSION_TOKEN = /^occs_[A-Za-z0-9_-]{43}$/;
const ALICE = { sub: 'alice', email: 'alice@example.com', name: 'Alice', groups: ['team-a'] };
const BOB = { sub: 'bob', email: 'bob@example.com', name: 'Bob', groups: ['team-b'] };

function json<T = any>(result: OccResult): T {
  expect(result.stderr, result.stderr).not.toMatch(/error/);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe('occ login --sso, occ logout, occ sign-in provider and occ sign-in-rules against a real OpenID provider', () => {
  let world: CliWorld;
  let provider: OidcTestProvider;
  const ids = { secret: '', role: '' };
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => world.controller.request({ method, url, ...(body ? { body } : {}) });
  const configOf = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

  /**
   * Runs `occ login --sso` as a person would: reads the code it prints on stderr while it waits,
   * and hands it to `person` (who approves or denies it at the provider).
   */
  function ssoLogin(args: string[], configFile: string, person: (userCode: string) => Promise<void>): Promise<OccResult & { userCode: string }> {
    const env = { PATH: process.env.PATH, HOME: world.home, OCC_CONFIG: configFile, NO_COLOR: '1' };
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [OCC_BIN, 'login', '--sso', '--server', world.server, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let userCode = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`occ login --sso did not finish:\n${stdout}\n${stderr}`));
      }, 45_000);
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const code = /and enter the code (\S+)\n/.exec(stderr)?.[1];
        if (code && !userCode) {
          userCode = code;
          person(code).catch((error: unknown) => {
            child.kill('SIGKILL');
            reject(error);
          });
        }
      });
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, userCode });
      });
    });
  }

  beforeAll(async () => {
    [world, provider] = await Promise.all([startCliWorld(), startOidcProvider({ users: [ALICE, BOB], redirectUris: [] })]);
    const ns = world.controller.defaultNamespaceId;
    const secret = await api('POST', `/namespaces/${ns}/secrets`, { name: 'oidc-client-secret', value: provider.clientSecret });
    expect(secret.status, secret.raw).toBe(201);
    ids.secret = secret.body.data.id;
    const put = await api('PUT', '/sign-in/provider', {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecretId: ids.secret,
      publicUrl: world.server,
      scopes: ['openid', 'profile', 'email', 'offline_access', 'groups'],
    });
    expect(put.status, put.raw).toBe(200);
    const role = await api('POST', '/iam/roles', { name: 'ns-reader', permissions: [{ action: 'read', resourceKind: 'namespace' }] });
    expect(role.status, role.raw).toBe(201);
    ids.role = role.body.data.id;
    const rule = await api('POST', '/iam/sign-in-rules', { claim: 'groups', value: 'team-a', roleId: ids.role, namespaceId: ns });
    expect(rule.status, rule.raw).toBe(201);
  });
  afterAll(async () => {
    await world?.close();
    await provider?.close();
  });

  it('login --sso: the code is approved at the provider, the session is saved 0600 as the current context, and whoami signs in as the person', async () => {
    const configFile = join(world.home, 'sso.json');
    const login = await ssoLogin(['--name', 'sso', '-n', 'default', '-o', 'json'], configFile, (code) => provider.approveDevice(code, 'alice'));
    expect(login.code, login.stderr).toBe(0);
    // Both the page and the code, on stderr, whatever -o says; stdout stays empty.
    expect(login.stderr).toMatch(new RegExp(`^To sign in, open ${provider.issuer}/device\\S* and enter the code ${login.userCode}\\n`));
    expect(login.stdout).toBe('');
    expect(login.stderr).toMatch(
      new RegExp(`Signed in to ${world.server.replace(/\./g, '\\.')} as alice@example\\.com \\(session until \\d{4}-\\d\\d-\\d\\dT[^)]+\\); context sso is current`),
    );

    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const config = configOf(configFile);
    expect(config).toEqual({ currentContext: 'sso', contexts: { sso: { server: world.server, apiKey: expect.stringMatching(SESSION_TOKEN), namespace: 'default' } } });
    // The token is the credential, never printed.
    expect(login.stdout + login.stderr).not.toContain(config.contexts.sso.apiKey);

    const env = { env: { OCC_CONFIG: configFile } };
    const me = json(await world.occ(['whoami', '-o', 'json'], env));
    expect(me).toMatchObject({ principal: { name: 'alice@example.com', kind: 'human' }, apiKeyFrom: 'context', context: 'sso', namespace: 'default', bindings: null });
    const table = await world.occ(['whoami'], env);
    expect(table.stdout).toContain('alice@example.com (human, prn_');
    expect(table.stdout).toMatch(/Credential:\s+single sign-on session of context sso\n/);
    // Every other command works with it: the rule grants read on the Namespace.
    expect(json(await world.occ(['namespaces', 'get', 'default', '-o', 'json'], env))).toMatchObject({ id: world.controller.defaultNamespaceId });
    const refused = await world.occ(['namespaces', 'create', 'not-allowed'], env);
    expect(refused.code).toBe(4);
  });

  it('login --sso denied at the provider: a non-zero exit with the refusal, and nothing saved', async () => {
    const configFile = join(world.home, 'denied.json');
    const denied = await ssoLogin(['--name', 'denied'], configFile, (code) => provider.denyDevice(code, 'alice'));
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain('error: SIGN_IN_REFUSED: The sign-in was denied at the identity provider.');
    expect(() => statSync(configFile)).toThrow();
  });

  it('login --sso as a person no rule admits: refused with the reason; --sso with --key-file is a usage error', async () => {
    const configFile = join(world.home, 'bob.json');
    const bob = await ssoLogin([], configFile, (code) => provider.approveDevice(code, 'bob'));
    expect(bob.code).toBe(4);
    expect(bob.stderr).toContain('error: SIGN_IN_REFUSED: You signed in at the identity provider, but no sign-in rule admits you to OCC');
    expect(() => statSync(configFile)).toThrow();

    // A -n the person cannot see: nothing is saved (as with an API key), and the session is not kept.
    const signOuts = async () => (await api('GET', '/audit-events?action=sessions.delete&limit=200')).body.data.items.length as number;
    const before = await signOuts();
    const wrongNs = await ssoLogin(['-n', 'no-such-namespace'], configFile, (code) => provider.approveDevice(code, 'alice'));
    expect(wrongNs.code).toBe(3);
    expect(wrongNs.stderr).toContain('error: NOT_FOUND: No Namespace named "no-such-namespace"');
    expect(() => statSync(configFile)).toThrow();
    expect(await signOuts()).toBe(before + 1);

    const both = await world.occ(['login', '--sso', '--key-file', 'x', '--server', world.server]);
    expect([both.code, both.stderr]).toEqual([2, 'error: --sso and --key-file exclude each other: single sign-on needs no API key\n']);
  });

  it('logout ends the session on the server (its token is refused from then on) and deletes the context; an API-key context is only forgotten', async () => {
    const configFile = join(world.home, 'logout.json');
    const login = await ssoLogin(['--name', 'mine'], configFile, (code) => provider.approveDevice(code, 'alice'));
    expect(login.code, login.stderr).toBe(0);
    const token: string = configOf(configFile).contexts.mine.apiKey;
    const asSession = () => world.controller.request({ method: 'GET', url: '/whoami', key: token });
    expect((await asSession()).status).toBe(200);

    const env = { env: { OCC_CONFIG: configFile } };
    const logout = await world.occ(['logout'], env);
    expect(logout, logout.stderr).toMatchObject({ code: 0, stdout: '' });
    expect(logout.stderr).toBe(`Signed out of ${world.server}: the session has ended. Context mine deleted.\n`);
    expect((await asSession()).status).toBe(401);
    expect(configOf(configFile)).toEqual({ contexts: {} });
    expect(statSync(configFile).mode & 0o777).toBe(0o600);

    // A context whose session ended already (401) is deleted all the same.
    const again = await ssoLogin(['--name', 'again'], configFile, (code) => provider.approveDevice(code, 'alice'));
    expect(again.code, again.stderr).toBe(0);
    const second: string = configOf(configFile).contexts.again.apiKey;
    expect((await world.controller.request({ method: 'DELETE', url: '/sessions/current', key: second })).status).toBe(200);
    const gone = await world.occ(['logout', '--context', 'again'], env);
    expect([gone.code, gone.stderr]).toEqual([0, `The session had already ended on ${world.server}. Context again deleted.\n`]);

    // An API key: forgotten here only; it still signs in on the server.
    const keyLogin = await world.occ(['login', '--server', world.server, '--name', 'admin'], { stdin: `${world.controller.adminKey}\n`, ...env });
    expect(keyLogin.code, keyLogin.stderr).toBe(0);
    const keyLogout = await world.occ(['logout', '--context', 'admin'], env);
    expect(keyLogout.code).toBe(0);
    expect(keyLogout.stderr).toContain('Context admin deleted. Its API key is only forgotten here: it stays valid on');
    expect(configOf(configFile)).toEqual({ contexts: {} });
    expect((await world.controller.request({ method: 'GET', url: '/whoami' })).status).toBe(200);

    const none = await world.occ(['logout'], env);
    expect([none.code, none.stderr]).toEqual([2, 'error: No current context: nothing to sign out of (occ context list)\n']);
  });

  it('sign-in-rules: create with names and an explicit scope, list, get, delete; the scope is never implied', async () => {
    const created = json(await world.occ(['sign-in-rules', 'create', '--value', 'team-c', '--role', 'ns-reader', '-n', 'default', '-o', 'json']));
    expect(created).toMatchObject({
      id: expect.stringMatching(/^sir_/),
      claim: 'groups',
      value: 'team-c',
      roleId: ids.role,
      namespaceId: world.controller.defaultNamespaceId,
      resource: null,
    });
    const claimed = json(
      await world.occ(['sign-in-rules', 'create', '--claim', 'email', '--value', 'carol@example.com', '--role', ids.role, '--resource', 'namespace/default', '-o', 'json']),
    );
    expect(claimed).toMatchObject({ claim: 'email', value: 'carol@example.com', resource: { kind: 'namespace', id: world.controller.defaultNamespaceId } });

    const noScope = await world.occ(['sign-in-rules', 'create', '--value', 'team-d', '--role', 'ns-reader']);
    expect(noScope.code).toBe(2);
    expect(noScope.stderr).toContain('Choose the scope');
    const noRole = await world.occ(['sign-in-rules', 'create', '--value', 'team-d', '--role', 'no-such-role', '--installation']);
    expect([noRole.code, noRole.stderr]).toEqual([3, 'error: NOT_FOUND: No role named "no-such-role"\n']);

    const table = await world.occ(['sign-in-rules', 'list']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual(['ID', 'CLAIM', 'VALUE', 'ROLE', 'NAMESPACE', 'RESOURCE', 'AGE']);
    expect(
      lines
        .find((line) => line.startsWith(created.id))!
        .split(/\s{2,}/)
        .slice(1, 6),
    ).toEqual(['groups', 'team-c', 'ns-reader', 'default', '*']);
    expect(
      lines
        .find((line) => line.startsWith(claimed.id))!
        .split(/\s{2,}/)
        .slice(1, 6),
    ).toEqual(['email', 'carol@example.com', 'ns-reader', 'default', 'namespace/default']);
    const listed = json(await world.occ(['sign-in-rules', 'list', '-o', 'json']));
    expect(listed.items.map((rule: { id: string }) => rule.id)).toEqual(expect.arrayContaining([created.id, claimed.id]));
    expect((await world.occ(['sign-in-rules', 'list', '-q'])).stdout.split('\n')).toEqual(expect.arrayContaining([created.id, claimed.id]));

    expect(json(await world.occ(['sign-in-rules', 'get', created.id, '-o', 'json']))).toEqual(created);
    expect((await world.occ(['sign-in-rules', 'get', created.id, '-o', 'name'])).stdout).toBe(`signinrule/${created.id}\n`);

    for (const id of [created.id, claimed.id]) {
      const deleted = await world.occ(['sign-in-rules', 'delete', id]);
      expect([deleted.code, deleted.stderr]).toEqual([0, `Sign-in rule ${id} deleted.\n`]);
    }
    expect((await world.occ(['sign-in-rules', 'get', created.id])).code).toBe(3);
  });

  it('sign-in provider: set resolves the Secret by name and shows the redirect URI; get; delete turns single sign-on off; the client secret is never printed', async () => {
    const set = await world.occ([
      'sign-in',
      'provider',
      'set',
      '--issuer',
      provider.issuer,
      '--client-id',
      provider.clientId,
      '--client-secret',
      'oidc-client-secret',
      '--public-url',
      'http://127.0.0.1:1',
      '--scopes',
      'openid profile email offline_access groups',
      '--groups-claim',
      'groups',
      '--refresh-interval',
      '600',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^Issuer:\s+http:\/\/127\.0\.0\.1:\d+\n/);
    expect(set.stdout).toMatch(new RegExp(`\nClient secret:\\s+Secret ${ids.secret}\n`));
    expect(set.stdout).toMatch(/Redirect URI:\s+http:\/\/127\.0\.0\.1:1\/sign-in\/oidc\/callback\n/);
    expect(set.stdout).toMatch(/Scopes:\s+openid profile email offline_access groups\n/);
    expect(set.stdout).toMatch(/Refresh interval:\s+600s\n/);
    expect(set.stderr).toBe('Register http://127.0.0.1:1/sign-in/oidc/callback as the redirect URI at the provider (and http://127.0.0.1:1/ as the post-logout redirect URI).\n');

    const got = json(await world.occ(['sign-in', 'provider', 'get', '-o', 'json']));
    expect(got).toMatchObject({
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecretId: ids.secret,
      publicUrl: 'http://127.0.0.1:1',
      redirectUri: 'http://127.0.0.1:1/sign-in/oidc/callback',
      groupsClaim: 'groups',
      refreshIntervalSeconds: 600,
    });
    expect((await world.occ(['sign-in', 'provider', 'get', '-q'])).stdout).toBe('http://127.0.0.1:1/sign-in/oidc/callback\n');
    // By id too, and in a Namespace named by flag; an unknown name is not found.
    const byId = await world.occ([
      'sign-in',
      'provider',
      'set',
      '--issuer',
      provider.issuer,
      '--client-id',
      provider.clientId,
      '--client-secret',
      ids.secret,
      '--public-url',
      world.server,
      '-o',
      'yaml',
    ]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(`redirectUri: ${world.server}/sign-in/oidc/callback\n`);
    const unknown = await world.occ([
      'sign-in',
      'provider',
      'set',
      '--issuer',
      provider.issuer,
      '--client-id',
      'x',
      '--client-secret',
      'nope',
      '--client-secret-namespace',
      'default',
      '--public-url',
      world.server,
    ]);
    expect([unknown.code, unknown.stderr]).toEqual([3, 'error: NOT_FOUND: No Secret named "nope" in this Namespace\n']);
    const badInterval = await world.occ([
      'sign-in',
      'provider',
      'set',
      '--issuer',
      provider.issuer,
      '--client-id',
      'x',
      '--client-secret',
      'nope',
      '--public-url',
      world.server,
      '--refresh-interval',
      '5',
    ]);
    expect(badInterval.code).toBe(2);

    const deleted = await world.occ(['sign-in', 'provider', 'delete']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain('Single sign-on is off');
    expect((await world.occ(['sign-in', 'provider', 'get'])).code).toBe(3);
    const off = await world.occ(['login', '--sso', '--server', world.server]);
    expect(off.code).toBe(5);
    expect(off.stderr).toContain('error: SIGN_IN_NOT_CONFIGURED: Single sign-on is not configured here: sign in with an API key. (occ login --server URL < KEY_FILE');

    // Nothing printed the client secret's value, nor did the controller log it.
    const everything = [set, byId, unknown, deleted, off].map((r) => r.stdout + r.stderr).join('\n');
    expect(everything).not.toContain(provider.clientSecret);
    expect(world.controller.logs.join('\n')).not.toContain(provider.clientSecret);
  });
});
