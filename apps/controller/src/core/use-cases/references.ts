import type { Configuration } from '@occ/contracts';
import { OccError, invalid } from '../errors.ts';
import { requireAccess, type Caller } from '../iam/access.ts';
import type { UnitOfWork } from '../ports/state.ts';
import type { SecretRecord } from '../ports/secret-repository.ts';

/**
 * A reference to a Secret from a resource of `namespaceId`: it must live in the same
 * Namespace (another Namespace's Secret → 400) and the caller must hold `secret:operate` on it.
 * The Namespace's SSH host key (docs/compute-ssh.md, "Hosts") and the sign-in provider's client
 * secret (docs/sign-in.md) are no Secrets an Agent or a catalog receives: referring to one for
 * anything but its own use is a 400.
 */
export async function requireSecretReference(
  uow: UnitOfWork,
  caller: Caller,
  namespaceId: string,
  secretId: string,
  pointer: string,
  use: 'delivered' | 'ssh-host-key' | 'sign-in-client-secret' = 'delivered',
): Promise<SecretRecord> {
  const secret = await uow.secrets.get(namespaceId, secretId);
  if (!secret) {
    const home = await uow.secrets.namespaceOf(secretId);
    if (home !== null) throw invalid('A Secret of another Namespace cannot be referred to.', [{ path: pointer, code: 'CROSS_NAMESPACE_REFERENCE' }]);
    throw new OccError('NOT_FOUND', 'Secret not found.', [{ path: pointer, code: 'INVALID_VALUE' }]);
  }
  rethrowWithPointer(pointer, () => requireAccess(caller, ['operate'], { kind: 'secret', id: secretId, namespaceId }));
  if (use === 'delivered' && (await uow.sshHosts.get(namespaceId))?.privateKeySecretId === secretId) {
    throw invalid("This Secret is the Namespace's SSH host client key, which no Agent and no catalog receives.", [{ path: pointer, code: 'UNSUPPORTED_VALUE' }]);
  }
  if (use !== 'sign-in-client-secret' && (await uow.signIn.getProvider())?.clientSecretId === secretId) {
    throw invalid("This Secret is the sign-in provider's client secret, which nothing else receives.", [{ path: pointer, code: 'UNSUPPORTED_VALUE' }]);
  }
  return secret;
}

/** An Agent's Configuration must be in its Namespace and readable by the caller. */
export async function requireConfigurationReference(uow: UnitOfWork, caller: Caller, namespaceId: string, configurationId: string, pointer: string): Promise<Configuration> {
  const configuration = await uow.configurations.get(namespaceId, configurationId);
  if (!configuration) throw new OccError('NOT_FOUND', 'Configuration not found.', [{ path: pointer, code: 'INVALID_VALUE' }]);
  rethrowWithPointer(pointer, () => requireAccess(caller, ['read'], { kind: 'configuration', id: configurationId, namespaceId }));
  return configuration;
}

/**
 * A Configuration snapshot (a rollback's older revision) must still be readable by the caller,
 * today. Its content comes from the snapshot, so the Configuration itself may have been deleted.
 */
export function requireConfigurationSnapshotAccess(caller: Caller, namespaceId: string, configurationId: string, pointer: string): void {
  rethrowWithPointer(pointer, () => requireAccess(caller, ['read'], { kind: 'configuration', id: configurationId, namespaceId }));
}

function rethrowWithPointer(pointer: string, check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (error instanceof OccError) throw new OccError(error.code, error.message, [{ path: pointer, code: 'INVALID_VALUE' }]);
    throw error;
  }
}
