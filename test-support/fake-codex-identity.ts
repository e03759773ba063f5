// The hosted identity service Codex signs a personal access token in with, as a local fake (the
// real one cannot run here): `GET …/api/accounts/v1/user-auth-credential/whoami` answers, for the
// one token it knows, every field the real service does (without `chatgpt_user_id` and
// `chatgpt_plan_type` Codex stays signed out); anything else is 401. Plain HTTP on loopback, for
// runtime tests; the e2e tests use the HTTPS fake-hosted-catalog.ts. Test support only.
import { createServer } from 'node:http';
import { listenOnLoopback } from './scripted-http.ts';

export interface FakeCodexIdentity {
  /** OCC_RUNTIME_CODEX_AUTH_BASE_URL (Codex's CODEX_AUTHAPI_BASE_URL). */
  authBaseUrl: string;
  /** OCC_RUNTIME_CODEX_CHATGPT_BASE_URL: the same origin, so no hosted call leaves it. */
  chatgptBaseUrl: string;
  /** The Authorization header of every request, oldest first. */
  readonly bearers: readonly string[];
  close(): Promise<void>;
}

/** whoami's answer as the real identity service gives it (also served by fake-hosted-catalog.ts). */
export function whoamiAnswer(account: { accountId?: string; plan?: string; fedramp?: boolean; email?: string | null }): Record<string, unknown> {
  return {
    email: account.email ?? null,
    chatgpt_user_id: `user-${account.accountId}`,
    chatgpt_account_id: account.accountId,
    chatgpt_plan_type: account.plan ?? 'pro',
    chatgpt_account_is_fedramp: account.fedramp ?? false,
  };
}

export async function startFakeCodexIdentity(token: string, account: { accountId: string; plan?: string }): Promise<FakeCodexIdentity> {
  const bearers: string[] = [];
  const server = createServer((request, response) => {
    bearers.push(request.headers.authorization ?? '');
    if (request.headers.authorization !== `Bearer ${token}` || !request.url?.endsWith('/v1/user-auth-credential/whoami')) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unknown token"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(whoamiAnswer(account)));
  });
  const port = await listenOnLoopback(server);
  return {
    authBaseUrl: `http://127.0.0.1:${port}/api/accounts`,
    chatgptBaseUrl: `http://127.0.0.1:${port}/backend-api`,
    bearers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
