import { containsCredentialToken, REDACTED } from '../apps/controller/src/core/credential-tokens.ts';
import { routeTable, type RouteContract } from '@occ/contracts';
import { unescapePointerSegment } from '@occ/policy';
import type { TestController, TestResponse } from './test-controller.ts';
import { uniqueName, WORLD_SIGN_IN_PROVIDER, WORLD_SSH_HOST, type World } from './world.ts';

/** One concrete, valid request for a route, aimed at Namespace A of a `buildWorld` world. */
export interface RouteRequest {
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A world, plus resources some routes need once they exist (a revision after a deploy), and for
 * the console session routes: a key to exchange, then the session it was exchanged for.
 */
export type FixtureWorld = World & {
  revisionId?: string;
  consoleKey?: string;
  session?: { token: string; csrf: string };
  /** A provider that answers (a test's OpenID provider fixture), saved by PUT /sign-in/provider instead of the world's silent one. */
  signInProvider?: { issuer: string; clientId: string; clientSecretId: string };
};
export type RouteFixture = (w: FixtureWorld) => RouteRequest;

const ns = (w: World) => `/namespaces/${w.nsA}`;
const agentA2 = (w: World) => `${ns(w)}/agents/${w.agentA2}`;
const revision = (w: FixtureWorld) => w.revisionId ?? w.revisionA2;
/** Without a session in the world, the session routes are sent with no cookie (and answer 401). */
const sessionHeaders = (w: FixtureWorld): Record<string, string> => (w.session ? { cookie: `occ_session=${w.session.token}`, 'x-csrf-token': w.session.csrf } : {});
const NEVER_ISSUED_KEY = `occ_${'n'.repeat(43)}`;

/**
 * A valid request for EVERY route of the route table, public ones included. Tests iterate the
 * route table and look their request up here, so a route added to the table without an entry
 * fails those tests (see `missingFixtures`). Mutations aim at the "second" resource of each kind
 * (secretA2, cfgA2, agentA2) so the first ones stay usable by later requests.
 */
export const ROUTE_FIXTURES: Readonly<Record<string, RouteFixture>> = {
  healthz: () => ({ url: '/healthz' }),
  readyz: () => ({ url: '/readyz' }),
  getOpenApi: () => ({ url: '/openapi.json' }),
  getInstallation: () => ({ url: '/installation' }),
  getCaller: () => ({ url: '/whoami' }),
  getVersion: () => ({ url: '/version' }),
  createNamespace: () => ({ url: '/namespaces', body: { name: uniqueName('ns') } }),
  listNamespaces: () => ({ url: '/namespaces' }),
  getNamespace: (w) => ({ url: ns(w) }),
  deleteNamespace: (w) => ({ url: ns(w) }),
  // Namespace B: its host exists and none of its Agents runs (Namespace A's agentA2 has a deploy under way).
  getNamespaceSshHost: (w) => ({ url: `/namespaces/${w.nsB}/ssh-host` }),
  putNamespaceSshHost: (w) => ({ url: `/namespaces/${w.nsB}/ssh-host`, body: { ...WORLD_SSH_HOST, address: 'ssh-host-2.example.test:2222', privateKeySecretId: w.sshKeyB } }),
  deleteNamespaceSshHost: (w) => ({ url: `/namespaces/${w.nsB}/ssh-host` }),
  createSecret: (w) => ({ url: `${ns(w)}/secrets`, body: { name: uniqueName('s'), value: 'fixture-value' } }),
  listSecrets: (w) => ({ url: `${ns(w)}/secrets` }),
  getSecret: (w) => ({ url: `${ns(w)}/secrets/${w.secretA2}` }),
  updateSecret: (w) => ({ url: `${ns(w)}/secrets/${w.secretA2}`, body: { value: 'fixture-rotated' } }),
  deleteSecret: (w) => ({ url: `${ns(w)}/secrets/${w.secretA2}` }),
  createConfiguration: (w) => ({ url: `${ns(w)}/configurations`, body: { name: uniqueName('c'), values: { gateway: { port: 1 } } } }),
  listConfigurations: (w) => ({ url: `${ns(w)}/configurations` }),
  getConfiguration: (w) => ({ url: `${ns(w)}/configurations/${w.cfgA2}` }),
  updateConfiguration: (w) => ({ url: `${ns(w)}/configurations/${w.cfgA2}`, body: { values: { x: 1 } } }),
  deleteConfiguration: (w) => ({ url: `${ns(w)}/configurations/${w.cfgA2}` }),
  createAgent: (w) => ({ url: `${ns(w)}/agents`, body: { name: uniqueName('a'), configurationId: w.cfgA, harness: 'openclaw', plugins: { browser: { enabled: true } } } }),
  listAgents: (w) => ({ url: `${ns(w)}/agents` }),
  getAgent: (w) => ({ url: `${ns(w)}/agents/${w.agentA2}` }),
  updateAgent: (w) => ({ url: `${ns(w)}/agents/${w.agentA2}`, body: { plugins: { browser: { enabled: false } } } }),
  deleteAgent: (w) => ({ url: `${ns(w)}/agents/${w.agentA2}` }),
  getAgentPluginCapabilities: (w) => ({ url: `${ns(w)}/agents/${w.agentA2}/plugins/capabilities` }),
  // Discovery: create-time with a same-Namespace Secret (codex) and with no credential (openclaw); agentA2 runs openclaw.
  discoverAgentPlugins: (w) => ({ url: `${ns(w)}/agents/plugins`, body: { harness: 'codex', secretRef: { kind: 'secret', namespaceId: w.nsA, id: w.secretA }, q: 'i' } }),
  discoverAgentPluginDetails: (w) => ({ url: `${ns(w)}/agents/plugins/details`, body: { harness: 'openclaw', pluginId: 'diffs' } }),
  discoverExistingAgentPlugins: (w) => ({ url: `${agentA2(w)}/plugins`, body: { q: 'i' } }),
  discoverExistingAgentPluginDetails: (w) => ({ url: `${agentA2(w)}/plugins/details`, body: { pluginId: 'diffs' } }),
  deployAgent: (w) => ({ url: `${agentA2(w)}/deploy` }),
  getAgentDrift: (w) => ({ url: `${agentA2(w)}/drift` }),
  stopAgent: (w) => ({ url: `${agentA2(w)}/stop` }),
  listAgentRevisions: (w) => ({ url: `${agentA2(w)}/revisions` }),
  getAgentRevision: (w) => ({ url: `${agentA2(w)}/revisions/${revision(w)}` }),
  getDeploymentStatus: (w) => ({ url: `${agentA2(w)}/deployments/${revision(w)}` }),
  streamDeploymentEvents: (w) => ({ url: `${agentA2(w)}/deployments/${revision(w)}/events` }),
  getRuntimeView: (w) => ({ url: `${agentA2(w)}/deployments/${revision(w)}/runtime` }),
  getRuntimeLogs: (w) => ({ url: `${agentA2(w)}/deployments/${revision(w)}/runtime/logs?tail=5` }),
  // agentA2 has no active revision in a world (its deploy is not reconciled): 409 AGENT_NOT_RUNNING.
  sendAgentMessage: (w) => ({ url: `${agentA2(w)}/messages`, body: { text: 'hello' } }),
  createPrincipal: () => ({ url: '/principals', body: { kind: 'human', name: uniqueName('p') } }),
  listPrincipals: () => ({ url: '/principals' }),
  getPrincipal: (w) => ({ url: `/principals/${w.principal}` }),
  deletePrincipal: (w) => ({ url: `/principals/${w.principal}` }),
  createApiKey: (w) => ({ url: `/principals/${w.principal}/api-keys`, body: { name: 'fixture key', expiresInDays: 7 } }),
  listApiKeys: (w) => ({ url: `/principals/${w.principal}/api-keys` }),
  revokeApiKey: (w) => ({ url: `/principals/${w.principal}/api-keys/${w.apiKey}` }),
  createRole: () => ({ url: '/iam/roles', body: { name: uniqueName('r'), permissions: [{ action: 'read', resourceKind: 'agent' }] } }),
  listRoles: () => ({ url: '/iam/roles' }),
  getRole: (w) => ({ url: `/iam/roles/${w.role}` }),
  deleteRole: (w) => ({ url: `/iam/roles/${w.role}` }),
  createAccessBinding: (w) => ({ url: '/iam/access-bindings', body: { principalId: w.principal, roleId: w.role, namespaceId: w.nsA } }),
  listAccessBindings: () => ({ url: '/iam/access-bindings' }),
  getAccessBinding: (w) => ({ url: `/iam/access-bindings/${w.binding}` }),
  deleteAccessBinding: (w) => ({ url: `/iam/access-bindings/${w.binding}` }),
  createRestriction: () => ({ url: '/iam/restrictions', body: { action: 'delete', resourceKind: 'agent' } }),
  listRestrictions: () => ({ url: '/iam/restrictions' }),
  getRestriction: (w) => ({ url: `/iam/restrictions/${w.restriction}` }),
  deleteRestriction: (w) => ({ url: `/iam/restrictions/${w.restriction}` }),
  listAuditEvents: () => ({ url: '/audit-events' }),
  exportAuditEvents: () => ({ url: '/audit-events/export' }),
  createSession: (w) => ({ url: '/sessions', body: { apiKey: w.consoleKey ?? NEVER_ISSUED_KEY } }),
  getSession: (w) => ({ url: '/sessions/current', headers: sessionHeaders(w) }),
  deleteSession: (w) => ({ url: '/sessions/current', headers: sessionHeaders(w) }),
  getSignInOptions: () => ({ url: '/sign-in' }),
  getSignInProvider: () => ({ url: '/sign-in/provider' }),
  putSignInProvider: (w) => ({
    url: '/sign-in/provider',
    body: { ...WORLD_SIGN_IN_PROVIDER, clientSecretId: w.signInSecret, ...w.signInProvider, scopes: ['openid', 'email', 'groups'], refreshIntervalSeconds: 120 },
  }),
  deleteSignInProvider: () => ({ url: '/sign-in/provider' }),
  // The world's own provider does not listen (the start answers 503, nothing is kept): a world with `signInProvider` answers 201.
  startDeviceSignIn: () => ({ url: '/sign-in/device' }),
  pollDeviceSignIn: () => ({ url: '/sign-in/device/token', body: { deviceRequestId: `occd_${'n'.repeat(43)}` } }),
  createSignInRule: (w) => ({ url: '/iam/sign-in-rules', body: { value: 'fixture-group', roleId: w.role, namespaceId: w.nsA } }),
  listSignInRules: () => ({ url: '/iam/sign-in-rules' }),
  getSignInRule: (w) => ({ url: `/iam/sign-in-rules/${w.signInRule}` }),
  deleteSignInRule: (w) => ({ url: `/iam/sign-in-rules/${w.signInRule}` }),
};

/** operationIds of route-table entries that have no fixture: must stay empty. */
export function missingFixtures(routes: readonly RouteContract[] = routeTable): string[] {
  return routes.filter((r) => !Object.hasOwn(ROUTE_FIXTURES, r.operationId)).map((r) => r.operationId);
}

export function fixtureFor(route: RouteContract, w: FixtureWorld): RouteRequest {
  const fixture = ROUTE_FIXTURES[route.operationId];
  if (!fixture) throw new Error(`No fixture for route ${route.operationId}: add one to test-support/route-fixtures.ts`);
  return fixture(w);
}

/** Routes whose contract declares a request body. */
export const bodyRoutes = (routes: readonly RouteContract[] = routeTable) => routes.filter((r) => r.schemas.body !== undefined);

/**
 * Sends a route's request. A body is always serialized here (even a bare JSON string), so
 * what the server parses is exactly JSON.stringify(body).
 */
export function send(t: TestController, route: RouteContract, request: RouteRequest, key?: string | null): Promise<TestResponse> {
  return t.request({
    method: route.method,
    url: request.url,
    ...(key !== undefined ? { key } : {}),
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    ...(request.headers ? { headers: request.headers } : {}),
  });
}

/** Every route path placeholder (`:ns`, `:id`, …) replaced by `value`. */
export function urlWithParams(route: RouteContract, value: string): string {
  return route.path.replace(/:[A-Za-z]+/g, value);
}

const REQUEST_ID = /^req_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const POINTER = /^(\/([^~/]|~[01])*)*$/;

/** RFC 6901: the segments of a syntactically valid pointer, or null. */
function parsePointer(path: string): string[] | null {
  if (!POINTER.test(path)) return null;
  return path === '' ? [] : path.slice(1).split('/').map(unescapePointerSegment);
}

/**
 * Whether `path` names a node of `body` ("" = the body). A REQUIRED detail may name a missing
 * member, as long as its parent is an object of the body.
 */
function pointsInto(body: unknown, path: string, code: string): boolean {
  const segments = parsePointer(path);
  if (!segments) return false;
  let node = body;
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= node.length) return false;
      node = node[Number(segment)];
    } else if (node !== null && typeof node === 'object' && Object.hasOwn(node, segment)) {
      node = (node as Record<string, unknown>)[segment];
    } else if (segment === REDACTED && node !== null && typeof node === 'object' && Object.keys(node).some(containsCredentialToken)) {
      // The server scrubs a credential-shaped key out of a pointer (http/error-mapping.ts): it names one of those.
      node = (node as Record<string, unknown>)[Object.keys(node).find(containsCredentialToken)!];
    } else {
      return last && code === 'REQUIRED' && node !== null && typeof node === 'object';
    }
  }
  return true;
}

/**
 * What is wrong with an answer, [] when nothing: never 5xx; headers on every response; the
 * error envelope on every 4xx with a status matching its code; every detail a valid pointer; a
 * 400 names at least one field inside the submitted body.
 */
export function responseProblems(res: TestResponse, body: unknown, errorStatus: (code: string) => number | undefined): string[] {
  const problems: string[] = [];
  const id = res.headers['x-request-id'];
  if (res.status >= 500) problems.push(`answered ${res.status}: ${res.raw.slice(0, 300)}`);
  if (typeof id !== 'string' || !REQUEST_ID.test(id)) problems.push(`x-request-id is ${String(id)}`);
  if (res.headers['cache-control'] !== 'no-store') problems.push(`cache-control is ${String(res.headers['cache-control'])}`);
  if (res.status < 400) return problems;
  const error = res.body?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return [...problems, `no error envelope: ${res.raw.slice(0, 300)}`];
  if (res.body.meta?.requestId !== id) problems.push('meta.requestId differs from x-request-id');
  if (errorStatus(error.code) !== res.status) problems.push(`code ${error.code} with status ${res.status}`);
  const details: { path: string; code: string }[] = error.details ?? [];
  for (const d of details) if (parsePointer(d.path) === null) problems.push(`detail path ${JSON.stringify(d.path)} is not a JSON pointer`);
  if (res.status === 400 && !details.some((d) => pointsInto(body, d.path, d.code))) {
    problems.push(`400 without a detail inside the body: ${JSON.stringify(details).slice(0, 300)}`);
  }
  return problems;
}
