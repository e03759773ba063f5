import { readBoundedText } from '@occ/host-io/bounded-body';

/**
 * The gateway's own readiness, as OpenClaw defines it (docs/gateway/health.md): `GET /readyz` on
 * the gateway port answers 200 `{"ready":true,…}` once startup is complete, the gateway is not
 * draining, the agent databases are admitted and configured channels pass their checks; 503
 * before and during drain. The bearer token makes the answer detailed (it is sent, never logged).
 * True only for a 200 whose JSON body says `ready: true`; any other answer or a network error is
 * false. Throws only when `signal` aborts.
 */
const MAX_BODY_BYTES = 64 * 1024;

export async function probeGatewayReady(port: number, token: string, signal: AbortSignal): Promise<boolean> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return false;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.any([signal, AbortSignal.timeout(5_000)]),
    });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      return false;
    }
    const text = await readBoundedText(response.body, MAX_BODY_BYTES);
    if (text === null) return false;
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && (body as { ready?: unknown }).ready === true;
  } catch {
    signal.throwIfAborted();
    return false;
  }
}
