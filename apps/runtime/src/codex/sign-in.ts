import { StartupFailure } from '../failure.ts';
import { logEvent } from '../log.ts';
import type { AppServerClient } from './app-server-client.ts';
import { appServerStep, malformedAnswer } from './startup-failure.ts';

export interface SignInCheckOptions {
  signal: AbortSignal;
  /** How long the sign-in may still be under way before the startup fails. */
  deadlineMs?: number;
  intervalMs?: number;
  requestTimeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const SIGN_IN_DEADLINE_MS = 15_000;
const SIGN_IN_INTERVAL_MS = 1_000;

type AccountAnswer = { account: { type: string; planType?: string | null } | null };

function isAccountAnswer(value: unknown): value is AccountAnswer {
  if (typeof value !== 'object' || value === null || !('account' in value)) return false;
  const { account } = value as { account: unknown };
  return account === null || (typeof account === 'object' && typeof (account as { type?: unknown }).type === 'string');
}

/**
 * An Agent that has a codex_pat is served only signed in with it ([G-6]; the specification keeps
 * authentication a startup check). Codex signs in from CODEX_ACCESS_TOKEN by asking the identity
 * service who the token belongs to; when that is refused or unreachable it stays signed out, and
 * would send every turn to the model with no bearer. `account/read` (no refresh) tells which; it
 * is asked again until the deadline, since the sign-in may still be under way (a stop aborts the
 * next request through `signal`).
 */
export async function verifyCodexSignIn(client: AppServerClient, options: SignInCheckOptions): Promise<void> {
  const deadline = Date.now() + (options.deadlineMs ?? SIGN_IN_DEADLINE_MS);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (;;) {
    const answer = await appServerStep('the sign-in check', () =>
      client.request('account/read', { refreshToken: false }, { timeoutMs: options.requestTimeoutMs ?? 30_000, signal: options.signal }),
    );
    if (!isAccountAnswer(answer)) throw malformedAnswer('account/read', 'no account field');
    if (answer.account?.type === 'chatgpt') {
      logEvent('codex.signed_in', { planType: answer.account.planType ?? null });
      return;
    }
    if (Date.now() >= deadline) {
      logEvent('codex.signed_out', { account: answer.account?.type ?? null });
      throw new StartupFailure(
        'CODEX_SIGN_IN_FAILED',
        "The codex app-server is not signed in with the Agent's codex_pat: the identity service refused it or could not be reached.",
      );
    }
    await sleep(options.intervalMs ?? SIGN_IN_INTERVAL_MS);
  }
}
