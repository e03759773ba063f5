// The hosted service a Codex runtime test signs in at, with two hosted plugins to select: the HTTPS
// fake (test-support/fake-hosted-catalog.ts: identity, catalog, plugin service and the `codex_apps`
// MCP server on one origin, as the real hosted service is one). `mail` installs with its app
// connected; `calendar`'s install is answered with its app needing authentication
// (PLUGIN_AUTH_REQUIRED: the app is off and its bridge entry disabled). The `codex_apps` server
// lists a tool of BOTH apps, so only the configuration can keep a tool from running; the mail tool
// answers with a marker a test can look for in what the model got back.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakePluginItem, startFakeHostedCatalog, type FakeHostedCatalog } from '../../../../test-support/fake-hosted-catalog.ts';

const REMOTE = 'openai-curated-remote';
export const MAIL = `codex:mail@${REMOTE}`;
export const CALENDAR = `codex:calendar@${REMOTE}`;

export interface HostedApps {
  hosted: FakeHostedCatalog;
  /** What the mail tool returns if it ever runs. */
  mailResult: string;
  /** The fake's CA as an Installation's own CA reaches the runtime (Codex gets it as CODEX_CA_CERTIFICATE). */
  caFile: string;
  /** OCC_RUNTIME_CODEX_AUTH_BASE_URL and OCC_RUNTIME_CODEX_CHATGPT_BASE_URL: both on the fake's origin. */
  runtimeEnv: Record<string, string>;
  /** The Authorization header of every whoami the identity service answered, oldest first. */
  whoamiBearers(): (string | string[] | undefined)[];
  close(): Promise<void>;
}

/** Starts the fake with `pat` signed in as `accountId` on a plan without managed policies. */
export async function startHostedApps(pat: string, accountId: string): Promise<HostedApps> {
  const hosted = await startFakeHostedCatalog();
  hosted.accounts.set(pat, { accountId, plan: 'pro' });
  hosted.plugins.push(
    fakePluginItem('mail', { id: 'plugins~Plugin_mail', release: { version: '1.2.0', app_ids: ['asdk_app_mail'] } }),
    fakePluginItem('calendar', { id: 'plugins~Plugin_calendar', release: { version: '3.1.0', app_ids: ['asdk_app_calendar'] } }),
  );
  hosted.apps.set('asdk_app_mail', { id: 'asdk_app_mail', name: 'Mail', description: 'A mail app.' });
  hosted.apps.set('asdk_app_calendar', { id: 'asdk_app_calendar', name: 'Calendar', description: 'A calendar app.' });
  hosted.service.appsNeedingAuth.add('asdk_app_calendar');
  hosted.service.codexAppsTools.push({ app: 'asdk_app_mail', name: 'mail_send_message' }, { app: 'asdk_app_calendar', name: 'calendar_create_event' });
  const mailResult = `mail sent ${randomBytes(6).toString('hex')}`;
  hosted.service.toolResults.set('mail_send_message', { content: [{ type: 'text', text: mailResult }], isError: false });
  const caDir = mkdtempSync(join(tmpdir(), 'occ-hosted-apps-ca-'));
  const caFile = join(caDir, 'ca.pem');
  writeFileSync(caFile, hosted.ca, { mode: 0o600 });
  const origin = new URL(hosted.catalogBaseUrl).origin;
  return {
    hosted,
    mailResult,
    caFile,
    runtimeEnv: { OCC_RUNTIME_CODEX_AUTH_BASE_URL: `${origin}/api/accounts`, OCC_RUNTIME_CODEX_CHATGPT_BASE_URL: `${origin}/backend-api` },
    whoamiBearers: () => hosted.requests.filter((request) => request.path.endsWith('/v1/user-auth-credential/whoami')).map((request) => request.headers.authorization),
    async close() {
      await hosted.close();
      rmSync(caDir, { recursive: true, force: true });
    },
  };
}

interface SearchedNamespace {
  type?: string;
  name?: string;
  tools?: { name?: string }[];
}

/** The codex_apps namespace among the tools searches surfaced (what a model calls app tools in). */
export function codexAppsNamespace(searched: readonly unknown[][]): SearchedNamespace | undefined {
  return searched
    .flat()
    .map((tool) => tool as SearchedNamespace)
    .find((tool) => tool.type === 'namespace' && /^mcp__codex_apps/u.test(tool.name ?? ''));
}

/** Every tool searches surfaced, as `namespace.name` (or `name`). */
export function searchedToolNames(searched: readonly unknown[][]): string[] {
  return searched.flat().flatMap((tool) => {
    const found = tool as SearchedNamespace;
    return found.type === 'namespace' ? (found.tools ?? []).map((inner) => `${found.name}.${inner.name}`) : [found.name ?? ''];
  });
}

/** The values of `now` under call ids `before` did not hold: what the calls of one turn added (call ids are unique per model server). */
export function addedSince<T>(now: ReadonlyMap<string, T>, before: ReadonlyMap<string, T>): T[] {
  return [...now].filter(([callId]) => !before.has(callId)).map(([, value]) => value);
}
