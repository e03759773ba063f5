import { describe, expect, it } from 'vitest';
import type { AppServerClient } from '../../src/codex/app-server-client.ts';
import { verifyCodexSignIn } from '../../src/codex/sign-in.ts';
import { StartupFailure } from '../../src/failure.ts';

/** A client whose `account/read` answers come from a list, one per call (the last one repeats). */
function answering(...answers: unknown[]) {
  const calls: [string, unknown][] = [];
  const client = {
    async request(method: string, params?: unknown) {
      calls.push([method, params]);
      return answers[Math.min(calls.length, answers.length) - 1];
    },
  } as unknown as AppServerClient;
  return { client, calls };
}
const signedIn = { account: { type: 'chatgpt', email: null, planType: 'enterprise' }, requiresOpenaiAuth: true };
const signedOut = { account: null, requiresOpenaiAuth: true };
const options = { signal: new AbortController().signal, intervalMs: 1, sleep: async () => undefined };
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('passed'),
    (error: unknown) => error as StartupFailure,
  );

describe('verifyCodexSignIn', () => {
  it('[G-6] passes once the app-server says it is signed in with a ChatGPT account, asking without a token refresh', async () => {
    const { client, calls } = answering(signedIn);
    await verifyCodexSignIn(client, options);
    expect(calls).toEqual([['account/read', { refreshToken: false }]]);
  });

  it('[G-6] asks again while the sign-in is under way', async () => {
    const { client, calls } = answering(signedOut, signedOut, signedIn);
    await verifyCodexSignIn(client, { ...options, deadlineMs: 60_000 });
    expect(calls).toHaveLength(3);
  });

  it('[G-6] a Codex still signed out at the deadline fails the startup with CODEX_SIGN_IN_FAILED, naming no token', async () => {
    const { client, calls } = answering(signedOut);
    const error = await failure(verifyCodexSignIn(client, { ...options, deadlineMs: 0 }));
    expect(error).toBeInstanceOf(StartupFailure);
    expect(error.code).toBe('CODEX_SIGN_IN_FAILED');
    expect(error.message).toMatch(/not signed in with the Agent's codex_pat/);
    expect(calls).toHaveLength(1);
  });

  it("[W-2] an answer without the protocol's account field is the app-server failing, not a sign-in verdict", async () => {
    const { client } = answering({ authMethod: null });
    expect((await failure(verifyCodexSignIn(client, options))).code).toBe('CODEX_APP_SERVER_FAILED');
  });
});
