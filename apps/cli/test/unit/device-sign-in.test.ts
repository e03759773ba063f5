import { describe, expect, it } from 'vitest';
import type { DeviceSignIn } from '@occ/contracts';
import { ApiError, ApiUnreachableError, type ApiClient } from '@occ/contracts/client';
import { pollDeviceSignIn } from '../../src/context/device-sign-in.ts';
import { CliError } from '../../src/exit-codes.ts';

const T0 = Date.parse('2026-12-01T10:00:00Z');
const signedIn = { status: 'signed_in', token: `occs_${'a'.repeat(43)}`, principalId: 'prn_x', principalName: 'alice@example.com', expiresAt: '2026-12-01T18:00:00Z' };

/** A clock that sleeps instantly, and a server that answers from a script (an Error is thrown). */
function scripted(answers: Array<{ status: number; data: unknown } | Error>) {
  let now = T0;
  const waits: number[] = [];
  const bodies: unknown[] = [];
  const client = {
    server: 'http://occ.test',
    async call(operationId: string, input: { body?: unknown }) {
      expect(operationId).toBe('pollDeviceSignIn');
      bodies.push(input.body);
      const next = answers.shift();
      if (!next) throw new Error('polled once too often');
      if (next instanceof Error) throw next;
      return { status: next.status, data: next.data, etag: undefined, requestId: undefined };
    },
  } as unknown as ApiClient;
  const options = {
    now: () => now,
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
  };
  return { client, options, waits, bodies };
}

const started = (over: Partial<DeviceSignIn> = {}): DeviceSignIn => ({
  deviceRequestId: `occd_${'b'.repeat(43)}`,
  userCode: 'ABCD-EFGH',
  verificationUri: 'https://idp.test/device',
  verificationUriComplete: null,
  expiresAt: new Date(T0 + 60_000).toISOString(),
  intervalSeconds: 5,
  ...over,
});

describe('occ login --sso polling', () => {
  it('waits the interval before each poll, follows a changed interval, and returns the session', async () => {
    const world = scripted([
      { status: 200, data: { status: 'pending', intervalSeconds: 5 } },
      { status: 200, data: { status: 'pending', intervalSeconds: 10 } },
      { status: 201, data: signedIn },
    ]);
    await expect(pollDeviceSignIn(world.client, started(), world.options)).resolves.toEqual(signedIn);
    expect(world.waits).toEqual([5000, 5000, 10_000]);
    expect(world.bodies).toEqual(Array(3).fill({ deviceRequestId: started().deviceRequestId }));
  });

  it('stops at the request expiry with a clear error, never waiting past it', async () => {
    const world = scripted(Array.from({ length: 10 }, () => ({ status: 200, data: { status: 'pending', intervalSeconds: 25 } })));
    const error = await pollDeviceSignIn(world.client, started(), world.options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ exitCode: 4, code: 'SIGN_IN_EXPIRED', message: expect.stringContaining('expired before it was completed') });
    // 5 s, then 25 s twice, then only the 5 s left: 60 s in all, three polls.
    expect(world.waits).toEqual([5000, 25_000, 25_000, 5000]);
    expect(world.bodies).toHaveLength(3);
  });

  it("throws the server's refusal as it is; rides out a few transient failures, not more", async () => {
    const refused = new ApiError(403, 'SIGN_IN_REFUSED', 'The sign-in was denied at the identity provider.');
    const world = scripted([{ status: 200, data: { status: 'pending', intervalSeconds: 1 } }, refused]);
    await expect(pollDeviceSignIn(world.client, started({ intervalSeconds: 1 }), world.options)).rejects.toBe(refused);

    const unavailable = new ApiError(503, 'IDENTITY_PROVIDER_UNAVAILABLE', 'The identity provider did not answer; try again shortly.');
    const flaky = scripted([unavailable, new ApiUnreachableError('http://occ.test', new Error('ECONNRESET')), { status: 201, data: signedIn }]);
    await expect(pollDeviceSignIn(flaky.client, started({ intervalSeconds: 1 }), flaky.options)).resolves.toEqual(signedIn);

    const down = scripted([unavailable, unavailable, unavailable]);
    await expect(pollDeviceSignIn(down.client, started({ intervalSeconds: 1 }), down.options)).rejects.toBe(unavailable);
  });
});
