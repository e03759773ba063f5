import type { Agent, DiscoverySecretRef, Harness } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, conflict, invalid, notFound } from '../errors.ts';
import { can, requireAccess, type Caller } from '../iam/access.ts';
import type { SecretRecord } from '../ports/secret-repository.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { callDiscovery, type CatalogAnswer, type CatalogQuery, type DiscoveryTarget } from './discovery-call.ts';
import { requireNamespace } from './namespaces.ts';
import { requireSecretReference } from './references.ts';

/**
 * Credential-scoped plugin discovery (seed "Credential-scoped discovery", docs/api.md, "Plugin discovery").
 * The order of checks is part of the contract (docs/api.md): authorization, then PluginDriver
 * support, then the Secret's value, then the driver. Nothing is persisted and no transaction
 * is held: every state access is a plain read, finished before any provider I/O.
 */

/** The credential of a create-time request: at most one of a transient token and a Secret. */
export interface CreateTimeCredential {
  harness: Harness;
  accessToken?: string;
  secretRef?: DiscoverySecretRef;
}

/** The harness's discovery, or 501 — decided before any Secret value is read. */
function requireDiscovery(deps: ControllerDeps, harness: Harness): DiscoveryTarget {
  const driver = deps.pluginDrivers[harness];
  if (!driver?.discovery) throw new OccError('NOT_IMPLEMENTED', "This harness's PluginDriver cannot discover plugins.");
  return { driverId: driver.id, discovery: driver.discovery, metrics: deps.metrics };
}

/** The Secret's current value, in memory, for `use`; a backend failure is a 503 (errors of `use` pass through). */
async function withSecretValue<T>(deps: ControllerDeps, secret: SecretRecord, use: (value: string) => Promise<T>): Promise<T> {
  try {
    return await deps.secrets.withValue(secret, { namespaceId: secret.namespaceId, secretId: secret.id }, use);
  } catch (error) {
    if (error instanceof OccError) throw error;
    throw new OccError('DEPENDENCY_UNAVAILABLE', 'The Secret cannot be read right now; retry later.');
  }
}

/**
 * Before the Agent exists. The route already authorized `agent:create` on the Namespace.
 * (1) the Namespace must exist; a secretRef must name it (400 before any Secret lookup) and the caller must hold
 * `operate` on that exact Secret; (2) driver support (501, nothing read); the credential must
 * suit the driver; (3) a Secret's value is read through `withValue`; (4) the driver is called.
 */
export async function discoverForNewAgent<Q extends CatalogQuery>(
  deps: ControllerDeps,
  caller: Caller,
  namespaceId: string,
  input: CreateTimeCredential,
  query: Q,
  signal: AbortSignal,
): Promise<CatalogAnswer<Q>> {
  const { accessToken, secretRef } = input;
  if (accessToken !== undefined && secretRef !== undefined) {
    throw invalid('Give at most one credential: accessToken or secretRef.', [{ path: '/secretRef', code: 'INVALID_COMBINATION' }]);
  }
  const secret = await deps.state.read(async (uow) => {
    await requireNamespace(uow, namespaceId);
    if (!secretRef) return null;
    // Another Namespace's Secret is refused from the body alone, before any Secret is looked up.
    if (secretRef.namespaceId !== namespaceId) {
      throw invalid('A Secret of another Namespace cannot be used.', [{ path: '/secretRef/namespaceId', code: 'CROSS_NAMESPACE_REFERENCE' }]);
    }
    return requireSecretReference(uow, caller, namespaceId, secretRef.id, '/secretRef/id');
  });

  const target = requireDiscovery(deps, input.harness);
  const credentialPointer = secretRef ? '/secretRef' : '/accessToken';
  if (target.discovery.credential === 'none' && (accessToken !== undefined || secret)) {
    throw invalid("This harness's plugin catalog takes no credential.", [{ path: credentialPointer, code: 'UNSUPPORTED_FIELD' }]);
  }
  if (target.discovery.credential !== 'none' && accessToken === undefined && !secret) {
    throw invalid("This harness's plugin catalog needs a credential: give accessToken or secretRef.", [{ path: '/accessToken', code: 'REQUIRED' }]);
  }

  if (!secret) return callDiscovery(target, query, accessToken, signal, credentialPointer);
  return withSecretValue(deps, secret, (value) => callDiscovery(target, query, value, signal, credentialPointer));
}

/** Both the caller and the Agent's own service principal must hold `secret:operate` on its bound Secret. */
async function requireBoundSecretGrants(uow: UnitOfWork, caller: Caller, agent: Agent, secretId: string): Promise<void> {
  const secret = { kind: 'secret', id: secretId, namespaceId: agent.namespaceId } as const;
  requireAccess(caller, ['operate'], secret);
  const agentPrincipal: Caller = { principalId: agent.servicePrincipalId, requestId: caller.requestId, policy: await uow.iam.loadPolicy(agent.servicePrincipalId) };
  if (!can(agentPrincipal, 'operate', secret)) throw new OccError('FORBIDDEN', "The Agent's service principal needs secret:operate on its bound Secret.");
}

/**
 * For a saved Agent. The route already authorized Agent read or update. (1) An Agent with a
 * bound codex_pat Secret (hosted): resolve it and authorize the caller's and the Agent's
 * `secret:operate`; (2) driver support (501, nothing read); a curated (`none`) catalog is
 * called without a credential; (3) inside `withValue`, the binding and both grants are checked
 * again against fresh state; (4) the driver is called.
 */
export async function discoverForAgent<Q extends CatalogQuery>(
  deps: ControllerDeps,
  caller: Caller,
  namespaceId: string,
  agentId: string,
  query: Q,
  signal: AbortSignal,
): Promise<CatalogAnswer<Q>> {
  const { agent, secret } = await deps.state.read(async (uow) => {
    const found = await uow.agents.get(namespaceId, agentId);
    if (!found) throw notFound('Agent');
    const secretId = found.harnessAuth?.secretId;
    if (!secretId) return { agent: found, secret: null };
    const bound = await uow.secrets.get(namespaceId, secretId);
    if (!bound) throw notFound('Secret');
    await requireBoundSecretGrants(uow, caller, found, secretId);
    return { agent: found, secret: bound };
  });

  const target = requireDiscovery(deps, agent.harness);
  if (target.discovery.credential === 'none') return callDiscovery(target, query, undefined, signal);
  if (!secret) throw conflict('The Agent has no codex_pat Secret bound (harnessAuth); bind one to discover its plugins.');

  return withSecretValue(deps, secret, async (value) => {
    await deps.state.read(async (uow) => {
      const current = await uow.agents.get(namespaceId, agentId);
      if (!current) throw notFound('Agent');
      if (current.harnessAuth?.secretId !== secret.id) throw conflict("The Agent's bound Secret changed during discovery; retry.");
      const fresh: Caller = { ...caller, policy: await uow.iam.loadPolicy(caller.principalId) };
      await requireBoundSecretGrants(uow, fresh, current, secret.id);
    });
    return callDiscovery(target, query, value, signal);
  });
}
