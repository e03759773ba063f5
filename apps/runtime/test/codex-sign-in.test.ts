import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCodexIdentity, type FakeCodexIdentity } from '../../../test-support/fake-codex-identity.ts';
import { startRealCodexAppServer, type RealCodexAppServer } from '../../../test-support/real-codex-app-server.ts';
import { verifyCodexSignIn } from '../src/codex/sign-in.ts';
import type { StartupFailure } from '../src/failure.ts';

// The sign-in check against the real `codex app-server`: it signs in from CODEX_ACCESS_TOKEN by
// asking the identity service (test-support/fake-codex-identity.ts) who the token is.
const pat = `at-canary-${randomBytes(16).toString('hex')}`;
let identity: FakeCodexIdentity;
let root: string;
let appServer: RealCodexAppServer | undefined;

beforeAll(async () => {
  identity = await startFakeCodexIdentity(pat, { accountId: 'acct-sign-in' });
});
afterAll(async () => identity?.close());
afterEach(async () => {
  await appServer?.stop();
  appServer = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
});

async function appServerWith(accessToken: string) {
  root = mkdtempSync(join(tmpdir(), 'occ-codex-sign-in-'));
  appServer = await startRealCodexAppServer({
    root,
    accessToken,
    authBaseUrl: identity.authBaseUrl,
    chatgptBaseUrl: identity.chatgptBaseUrl,
    network: {},
    requestTimeoutMs: 10_000,
    checkSignIn: false,
  });
  return appServer.client;
}

describe('the codex_pat sign-in check', () => {
  it('[G-6] passes when the identity service accepts the codex_pat', async () => {
    const client = await appServerWith(pat);
    await verifyCodexSignIn(client, { signal: new AbortController().signal, deadlineMs: 20_000 });
  }, 60_000);

  it('[G-6] fails the startup with CODEX_SIGN_IN_FAILED when the identity service refuses it: no signed-out Codex is served', async () => {
    const client = await appServerWith(`at-revoked-${randomBytes(8).toString('hex')}`);
    const error = await verifyCodexSignIn(client, { signal: new AbortController().signal, deadlineMs: 3_000 }).then(
      () => expect.unreachable('signed in'),
      (e: unknown) => e as StartupFailure,
    );
    expect(error.code).toBe('CODEX_SIGN_IN_FAILED');
  }, 60_000);
});
