import type { TestController } from './test-controller.ts';

/**
 * Resources the HTTP tests act on: two Namespaces, each with a pair of every kind. Namespace B also
 * has an SSH host (its key: sshKeyB, a Secret nothing else uses — a host key is no Agent's), and none
 * of its Agents is deployed, so the host may change.
 */
export interface World {
  nsA: string;
  nsB: string;
  secretA: string;
  secretA2: string;
  secretB: string;
  /** Namespace B's SSH host key. */
  sshKeyB: string;
  cfgA: string;
  cfgA2: string;
  cfgB: string;
  agentA: string;
  agentA2: string;
  agentB: string;
  principal: string;
  apiKey: string;
  role: string;
  binding: string;
  restriction: string;
  /** The sign-in provider's client secret (Namespace B), and a sign-in rule granting `role` in Namespace A. */
  signInSecret: string;
  signInRule: string;
  /** A revision of agentA2 (deployed, not yet reconciled). */
  revisionA2: string;
}

/** The world's sign-in provider: a loopback issuer nothing listens on (saving it asks nothing of the provider). */
export const WORLD_SIGN_IN_PROVIDER = { issuer: 'http://127.0.0.1:9', clientId: 'occ-world', publicUrl: 'http://occ.example.test' } as const;

/** Namespace B's SSH host in a world (a host that does not exist; nothing connects to it). */
export const WORLD_SSH_HOST = { address: 'ssh-host.example.test', user: 'occ-agents', hostKey: `SHA256:${'A'.repeat(43)}` } as const;

let counter = 0;
export const uniqueName = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

/** POST as the administrator and return `data`, failing loudly on anything but 201. */
export async function adminCreate(t: TestController, url: string, body: unknown): Promise<any> {
  const res = await t.request({ method: 'POST', url, body });
  if (res.status !== 201) throw new Error(`POST ${url} → ${res.status} ${res.raw}`);
  return res.body.data;
}

async function namespaceWithResources(t: TestController, ns: string) {
  const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'world-secret-value' });
  const secret2 = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'world-secret-value-2' });
  const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: { agents: {} } });
  const cfg2 = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
  const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
    name: uniqueName('a'),
    configurationId: cfg.id,
    harness: 'codex',
    harnessAuth: { method: 'codex_pat', secretId: secret.id },
  });
  const agent2 = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
  return { secret: secret.id, secret2: secret2.id, cfg: cfg.id, cfg2: cfg2.id, agent: agent.id, agent2: agent2.id };
}

export async function buildWorld(t: TestController): Promise<World> {
  const nsA = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
  const nsB = (await adminCreate(t, '/namespaces', { name: uniqueName('ns') })).id;
  const a = await namespaceWithResources(t, nsA);
  const b = await namespaceWithResources(t, nsB);
  const principal = (await adminCreate(t, '/principals', { kind: 'service', name: uniqueName('p') })).id;
  const apiKey = (await adminCreate(t, `/principals/${principal}/api-keys`, { name: 'k' })).apiKey.id;
  const role = (await adminCreate(t, '/iam/roles', { name: uniqueName('r'), permissions: [{ action: 'read', resourceKind: 'agent' }] })).id;
  const binding = (await adminCreate(t, '/iam/access-bindings', { principalId: principal, roleId: role, namespaceId: nsA })).id;
  const restriction = (await adminCreate(t, '/iam/restrictions', { principalId: principal, action: 'read', resourceKind: 'secret' })).id;
  const signInSecret = (await adminCreate(t, `/namespaces/${nsB}/secrets`, { name: uniqueName('sso'), value: 'world-client-secret-value' })).id;
  const provider = await t.request({ method: 'PUT', url: '/sign-in/provider', body: { ...WORLD_SIGN_IN_PROVIDER, clientSecretId: signInSecret } });
  if (provider.status !== 200) throw new Error(`PUT /sign-in/provider → ${provider.status} ${provider.raw}`);
  const signInRule = (await adminCreate(t, '/iam/sign-in-rules', { value: 'world-group', roleId: role, namespaceId: nsA })).id;
  // Saved straight to the store: PUT …/ssh-host needs a ComputeDriver that takes hosts, and a world serves any.
  await t.controller.deps.state.transact((uow) => uow.sshHosts.put({ namespaceId: nsB, ...WORLD_SSH_HOST, privateKeySecretId: b.secret2 }));
  const deployed = await t.request({ method: 'POST', url: `/namespaces/${nsA}/agents/${a.agent2}/deploy` });
  if (deployed.status !== 202) throw new Error(`deploy → ${deployed.status} ${deployed.raw}`);
  return {
    revisionA2: deployed.body.data.id,
    nsA,
    nsB,
    secretA: a.secret,
    secretA2: a.secret2,
    secretB: b.secret,
    sshKeyB: b.secret2,
    cfgA: a.cfg,
    cfgA2: a.cfg2,
    cfgB: b.cfg,
    agentA: a.agent,
    agentA2: a.agent2,
    agentB: b.agent,
    principal,
    apiKey,
    role,
    binding,
    restriction,
    signInSecret,
    signInRule,
  };
}

/** A new principal holding one API key; returns both. */
export async function newPrincipal(t: TestController, kind: 'human' | 'service' = 'service'): Promise<{ id: string; name: string; key: string }> {
  const principal = await adminCreate(t, '/principals', { kind, name: uniqueName('p') });
  const created = await adminCreate(t, `/principals/${principal.id}/api-keys`, { name: 'test key' });
  return { id: principal.id, name: principal.name, key: created.key };
}

/** A role holding every permission the matrix needs, and a binding of it. */
export async function grant(
  t: TestController,
  principalId: string,
  permissions: { action: string; resourceKind: string }[],
  scope: { namespaceId?: string; resource?: { kind: string; id: string } },
): Promise<string> {
  const role = await adminCreate(t, '/iam/roles', { name: uniqueName('role'), permissions });
  return (await adminCreate(t, '/iam/access-bindings', { principalId, roleId: role.id, ...scope })).id;
}
