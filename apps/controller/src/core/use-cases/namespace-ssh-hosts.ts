import type { PutNamespaceSshHostBody, SavedNamespaceSshHost } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, invalid, notFound } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import type { ComputeHostDirectory } from '../ports/compute-hosts.ts';
import type { SecretDriver } from '../ports/secret-driver.ts';
import type { StateStore, UnitOfWork } from '../ports/state.ts';
import { refusedByCompute } from './compute-refusal.ts';
import { requireNamespace } from './namespaces.ts';
import { requireSecretReference } from './references.ts';

/**
 * A Namespace's SSH host (docs/compute-ssh.md, "Hosts"): where the ssh ComputeDriver runs the
 * Namespace's Agents, with a Secret of the Namespace as its client key. Saving and removing it is
 * Installation administration (the route's permission) and audited; the key's value is opened
 * only for the driver's check and never reaches an answer, an error, a log line or the audit event.
 */

const MAX_LISTED = 32;

export async function getNamespaceSshHost(deps: ControllerDeps, _caller: Caller, namespaceId: string): Promise<SavedNamespaceSshHost> {
  return deps.state.read(async (uow) => {
    await requireNamespace(uow, namespaceId);
    const host = await uow.sshHosts.get(namespaceId);
    if (!host) throw notFound('SSH host');
    return host;
  });
}

/**
 * Creates or replaces the Namespace's host. Order of checks: the Namespace; the key Secret (same
 * Namespace, the caller's `secret:operate`); an installation ComputeDriver that places Agents on
 * SSH hosts (else 409 SSH_HOSTS_UNSUPPORTED); the driver's own check of every field with the
 * Secret's value (400 at the field it refuses); no Agent of the Namespace on the current host
 * (409 NAMESPACE_AGENTS_ACTIVE). Then the write and its audit event, in one transaction.
 */
export async function putNamespaceSshHost(deps: ControllerDeps, caller: Caller, namespaceId: string, body: PutNamespaceSshHostBody): Promise<SavedNamespaceSshHost> {
  return deps.state.transact(async (uow) => {
    await requireNamespace(uow, namespaceId);
    const secret = await requireSecretReference(uow, caller, namespaceId, body.privateKeySecretId, '/privateKeySecretId', 'ssh-host-key');
    await refuseDeliveredSecret(uow, namespaceId, secret.id);
    const compute = deps.compute;
    if (!compute?.validateSshHost) {
      const why = compute
        ? `The installation's ComputeDriver (${compute.id}) places no Agent on an SSH host`
        : 'The installation has no ComputeDriver (none), so no Agent runs on an SSH host';
      throw new OccError('SSH_HOSTS_UNSUPPORTED', `${why}: run OCC with OCC_COMPUTE_DRIVER=ssh to save one (docs/compute-ssh.md).`);
    }
    await deps.secrets.withValue(secret, { namespaceId, secretId: secret.id }, async (privateKey) =>
      refusedByCompute(() => compute.validateSshHost!({ address: body.address, user: body.user, hostKey: body.hostKey, privateKey })),
    );
    await refuseWhileAgentsOnHost(uow, namespaceId);
    const saved = await uow.sshHosts.put({ namespaceId, address: body.address, user: body.user, hostKey: body.hostKey, privateKeySecretId: secret.id });
    await recordAudit(uow, caller, { action: 'ssh_hosts.put', namespaceId, resource: { kind: 'namespace', id: namespaceId }, details: auditDetails(saved) });
    return saved;
  });
}

/** Removes the Namespace's host (404 when it has none); refused like a change while an Agent may run there. */
export async function deleteNamespaceSshHost(deps: ControllerDeps, caller: Caller, namespaceId: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    await requireNamespace(uow, namespaceId);
    if (!(await uow.sshHosts.get(namespaceId))) throw notFound('SSH host');
    await refuseWhileAgentsOnHost(uow, namespaceId);
    const removed = await uow.sshHosts.delete(namespaceId);
    if (!removed) throw notFound('SSH host');
    await recordAudit(uow, caller, { action: 'ssh_hosts.delete', namespaceId, resource: { kind: 'namespace', id: namespaceId }, details: auditDetails(removed) });
  });
}

/**
 * The driver finds an Agent's runtimes on its Namespace's current host: while one may run there
 * (it wants to run, has an active revision, or its removal is still queued) the host stays.
 * The Agent rows stay locked until the write commits.
 */
async function refuseWhileAgentsOnHost(uow: UnitOfWork, namespaceId: string): Promise<void> {
  const agents = await uow.sshHosts.agentsOnHost(namespaceId, MAX_LISTED);
  if (agents.length === 0) return;
  throw new OccError(
    'NAMESPACE_AGENTS_ACTIVE',
    "Agents of this Namespace run on its current SSH host: stop them first (and let the stops finish), then change the Namespace's host.",
    agents.map((id) => ({ path: `/agents/${id}`, code: 'REFERENCED_BY' as const })),
  );
}

/**
 * The key logs in as the user every Agent on the host runs as, and may be authorized on other
 * hosts: a Secret that Agents receive (a Configuration's binding, a Codex Agent's codex_pat) is
 * refused as a host key, as the host key is refused as a binding (references.ts).
 */
async function refuseDeliveredSecret(uow: UnitOfWork, namespaceId: string, secretId: string): Promise<void> {
  const delivered = (await uow.secrets.referrers(namespaceId, secretId, MAX_LISTED)).filter((r) => r.kind !== 'ssh-host');
  if (delivered.length === 0) return;
  throw invalid("This Secret is delivered to Agents (bound by a Configuration, or an Agent's codex_pat): an SSH host's client key must be a Secret no Agent receives.", [
    { path: '/privateKeySecretId', code: 'REFERENCED_BY' },
  ]);
}

/** What an audit event keeps of a host: all of it but the key's value, which it never holds (the host key is public). */
function auditDetails(host: SavedNamespaceSshHost): Record<string, unknown> {
  return { address: host.address, user: host.user, hostKey: host.hostKey, privateKeySecretId: host.privateKeySecretId };
}

/**
 * What the ssh ComputeDriver reads at every host effect (composition/worker.ts hands it to
 * `start`): the Namespace's saved host with its key Secret opened, null when it has none. The
 * value is the driver's to keep only while a connection may need it.
 */
export function createComputeHostDirectory(deps: { state: StateStore; secrets: SecretDriver }): ComputeHostDirectory {
  return {
    async sshHostOf(namespaceId) {
      const found = await deps.state.read(async (uow) => {
        const host = await uow.sshHosts.get(namespaceId);
        if (!host) return null;
        const secret = await uow.secrets.get(namespaceId, host.privateKeySecretId);
        // The foreign key keeps a host's Secret while the host exists: nothing to fall back to.
        if (!secret) throw new Error("The Namespace's SSH host names a Secret that is gone.");
        return { host, secret };
      });
      if (!found) return null;
      const { host, secret } = found;
      return deps.secrets.withValue(secret, { namespaceId, secretId: secret.id }, async (privateKey) => ({
        address: host.address,
        user: host.user,
        hostKey: host.hostKey,
        privateKey,
      }));
    },
  };
}
