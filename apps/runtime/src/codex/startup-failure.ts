import { StartupFailure } from '../failure.ts';
import { logEvent } from '../log.ts';
import { AppServerError } from './app-server-client.ts';

/**
 * What a failed app-server request means for the startup ([W-2]): transport loss, a timeout, a
 * signal or a malformed answer is an ordinary startup failure, never a plugin warning. The
 * app-server's own error text goes to the log only (it may quote configuration); the published
 * message is a fixed sentence naming the step.
 */
export function appServerFailure(error: unknown, step: string): StartupFailure {
  if (error instanceof StartupFailure) return error;
  if (!(error instanceof AppServerError)) throw error;
  logEvent('codex.request_failed', { step, method: error.method, kind: error.kind, rpcCode: error.rpcCode ?? null, rpcMessage: error.rpcMessage?.slice(0, 512) ?? null });
  return new StartupFailure(
    'CODEX_APP_SERVER_FAILED',
    `The codex app-server failed during ${step} (${error.kind === 'rpc' ? `JSON-RPC error ${error.rpcCode ?? 'without a code'}` : error.kind}).`,
  );
}

/** Runs one app-server step, turning its request failures into startup failures. */
export async function appServerStep<T>(step: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw appServerFailure(error, step);
  }
}

/** An answer that does not have the protocol's shape: the peer is not the one we pinned ([W-2]). */
export function malformedAnswer(method: string, what: string): StartupFailure {
  logEvent('codex.malformed_answer', { method, what });
  return new StartupFailure('CODEX_APP_SERVER_FAILED', `The codex app-server answered ${method} outside its protocol.`);
}
