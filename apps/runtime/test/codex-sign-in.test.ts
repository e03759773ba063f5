import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCodexIdentity, type FakeCodexIdentity } from '../../../test-support/fake-codex-identity.ts';
import { connectAppServer } from '../src/codex/app-server-connection.ts';
import { startListeningAppServer, type ListeningAppServer } from '../src/codex/app-server-listener.ts';
import { codexProcessEnvironment } from '../src/codex/app-server-env.ts';
import { appServerCredential } from '../src/codex/credential.ts';
import { verifyCodexSignIn } from '../src/codex/sign-in.ts';
import type { StartupFailure } from '../src/failure.ts';
import { pinnedToolchain } from '../src/toolchain.ts';

// The sign-in check against the real `codex app-server`: it signs in from CODEX_ACCESS_TOKEN by
// asking the identity service (test-support/fake-codex-identity.ts) who the token is.
const pat = `at-canary-${randomBytes(16).toString('hex')}`;
let identity: FakeCodexIdentity;
let home: string;
let server: ListeningAppServer | undefined;

beforeAll(async () => {
  identity = await startFakeCodexIdentity(pat, { accountId: 'acct-sign-in' });
});
afterAll(async () => identity?.close());
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
});

async function appServerWith(accessToken: string) {
  home = mkdtempSync(join(tmpdir(), 'occ-codex-sign-in-'));
  const toolchain = pinnedToolchain();
  const env = codexProcessEnvironment({
    toolchain,
    path: process.env.PATH ?? '',
    home,
    lang: 'C.UTF-8',
    codexHome: home,
    network: {},
    accessToken,
    authBaseUrl: identity.authBaseUrl,
    chatgptBaseUrl: identity.chatgptBaseUrl,
  });
  const credential = appServerCredential('t'.repeat(43), 'rev_sign_in', randomBytes(8).toString('hex'));
  server = await startListeningAppServer({ codexEntry: toolchain.codexEntry, nodeBinary: toolchain.nodeBinary, env, cwd: home, credential });
  return connectAppServer(server.url, credential, { requestTimeoutMs: 10_000 });
}

describe('the codex_pat sign-in check', () => {
  it('[G-6] passes when the identity service accepts the codex_pat', async () => {
    const client = await appServerWith(pat);
    await verifyCodexSignIn(client, { signal: new AbortController().signal, deadlineMs: 20_000 });
    await client.close();
  }, 60_000);

  it('[G-6] fails the startup with CODEX_SIGN_IN_FAILED when the identity service refuses it: no signed-out Codex is served', async () => {
    const client = await appServerWith(`at-revoked-${randomBytes(8).toString('hex')}`);
    const error = await verifyCodexSignIn(client, { signal: new AbortController().signal, deadlineMs: 3_000 }).then(
      () => expect.unreachable('signed in'),
      (e: unknown) => e as StartupFailure,
    );
    expect(error.code).toBe('CODEX_SIGN_IN_FAILED');
    await client.close();
  }, 60_000);
});
