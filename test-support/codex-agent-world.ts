// What a Codex Agent that answers needs around OCC, shared by the Codex e2e tests and
// bench/codex-turn.ts: the hosted service (identity, managed policies, catalog:
// fake-hosted-catalog.ts) that signs its codex_pat in, the scripted Responses API model Codex sends
// its turns to (scripted-responses-server.ts), both over HTTPS with one CA bundle; and the API calls
// that create such an Agent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeHostedCatalog, type FakeHostedCatalog } from './fake-hosted-catalog.ts';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from './scripted-responses-server.ts';
import { throwawayTls } from './throwaway-tls.ts';
import { uniqueName } from './world.ts';

export interface CodexBackends {
  hosted: FakeHostedCatalog;
  model: ScriptedResponsesServer;
  /** One CA bundle: the hosted fake's CA and the scripted model's. */
  caFile: string;
  /**
   * The Installation's settings for Agents on the local ComputeDriver: the same hosted bases for
   * discovery and runtimes, the CA trusted by both (runtimes hand it to Codex as
   * CODEX_CA_CERTIFICATE), the model Codex's `openai_base_url`; the fakes listen on this host's
   * loopback, so their ports are the ones the operator shares with confined runtimes
   * (OCC_LOCAL_SHARED_LOOPBACK_PORTS), as a hosted service on this machine would be.
   */
  localInstallationEnv: Record<string, string>;
  close(): Promise<void>;
}

/** Starts both fakes; `pat` signs in as `accountId`. `caFileMode`: 0o644 where another uid (a container) reads the bundle. */
export async function startCodexBackends(options: { pat: string; accountId: string; caFileMode?: number }): Promise<CodexBackends> {
  const hosted = await startFakeHostedCatalog();
  hosted.accounts.set(options.pat, { accountId: options.accountId });
  const modelTls = throwawayTls();
  const model = await startScriptedResponsesServer({ tls: modelTls }).catch(async (error: unknown) => {
    await hosted.close();
    throw error;
  });
  const caDir = mkdtempSync(join(tmpdir(), 'occ-codex-backends-'));
  const caFile = join(caDir, 'ca.pem');
  writeFileSync(caFile, `${hosted.ca.trim()}\n${modelTls.ca.trim()}\n`, { mode: options.caFileMode ?? 0o600 });
  return {
    hosted,
    model,
    caFile,
    localInstallationEnv: {
      OCC_CODEX_CATALOG_URL: hosted.catalogBaseUrl,
      OCC_CODEX_IDENTITY_URL: hosted.identityBaseUrl,
      OCC_CODEX_CA_FILE: caFile,
      OCC_RUNTIME_CA_FILE: caFile,
      OCC_CODEX_MODEL_URL: model.baseUrl,
      OCC_LOCAL_SHARED_LOOPBACK_PORTS: `${new URL(hosted.identityBaseUrl).port},${new URL(model.baseUrl).port}`,
    },
    async close() {
      await model.close();
      await hosted.close();
      rmSync(caDir, { recursive: true, force: true });
    },
  };
}

export interface CreatedCodexAgent {
  agent: { id: string; servicePrincipalId: string; [field: string]: unknown };
  secretId: string;
  configurationId: string;
}

/**
 * Creates, through `create` (one admin `POST` answered 201, returning `data`), a Codex Agent that
 * can answer: its codex_pat as a Secret, a Configuration with OpenClaw's OpenAI-compatible
 * endpoint on (how a caller talks to the Agent), the Agent (`harness: codex`, the codex_pat bound,
 * `plugins`), and its own principal's secret:operate on that Secret, which every start rechecks.
 */
export async function createCodexAgent(
  create: (url: string, body: unknown) => Promise<any>,
  ns: string,
  options: { pat: string; plugins: Record<string, { enabled: boolean }> },
): Promise<CreatedCodexAgent> {
  const secretId = (await create(`/namespaces/${ns}/secrets`, { name: uniqueName('codex-pat'), value: options.pat })).id as string;
  const configurationId = (
    await create(`/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: { gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } } })
  ).id as string;
  const agent = await create(`/namespaces/${ns}/agents`, {
    name: uniqueName('codex'),
    configurationId,
    harness: 'codex',
    harnessAuth: { method: 'codex_pat', secretId },
    plugins: options.plugins,
  });
  const role = await create('/iam/roles', { name: uniqueName('role'), permissions: [{ action: 'operate', resourceKind: 'secret' }] });
  await create('/iam/access-bindings', { principalId: agent.servicePrincipalId, roleId: role.id, namespaceId: ns, resource: { kind: 'secret', id: secretId } });
  return { agent, secretId, configurationId };
}
