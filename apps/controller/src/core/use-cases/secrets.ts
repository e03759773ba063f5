import type { CreateSecretBody, Secret, UpdateSecretBody } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { conflict, notFound } from '../errors.ts';
import { can, type Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';
import type { SecretRecord } from '../ports/secret-repository.ts';
import { requireNamespace } from './namespaces.ts';

/** Strips everything but metadata: no sealed value, no driver internals. */
function secretMetadata(s: SecretRecord): Secret {
  return { id: s.id, namespaceId: s.namespaceId, name: s.name, version: s.version, createdAt: s.createdAt, updatedAt: s.updatedAt };
}

export async function createSecret(deps: ControllerDeps, caller: Caller, namespaceId: string, body: CreateSecretBody): Promise<Secret> {
  return deps.state.transact(async (uow) => {
    await requireNamespace(uow, namespaceId);
    const id = newId('secret');
    const sealedValue = deps.secrets.seal(body.value, { namespaceId, secretId: id });
    const secret = await uow.secrets.insert({ id, namespaceId, name: body.name, driverId: deps.secrets.id, sealedValue });
    await recordAudit(uow, caller, { action: 'secrets.create', namespaceId, resource: { kind: 'secret', id }, details: { name: body.name } });
    return secretMetadata(secret);
  });
}

export async function listSecrets(deps: ControllerDeps, caller: Caller, namespaceId: string, query: ListQuery): Promise<Page<Secret>> {
  const page = await deps.state.read(async (uow) => {
    await requireNamespace(uow, namespaceId);
    return pageVisible(
      `secrets:${namespaceId}`,
      query,
      (p) => uow.secrets.scan(namespaceId, p),
      (s) => s.id,
      (s) => can(caller, 'read', { kind: 'secret', id: s.id, namespaceId }),
    );
  });
  return { items: page.items.map(secretMetadata), nextCursor: page.nextCursor };
}

export async function getSecret(deps: ControllerDeps, _caller: Caller, namespaceId: string, id: string): Promise<Secret> {
  const secret = await deps.state.read((uow) => uow.secrets.get(namespaceId, id));
  if (!secret) throw notFound('Secret');
  return secretMetadata(secret);
}

/** PATCH {value}: rotates the value in place; later reads through withValue see the new one. */
export async function rotateSecret(deps: ControllerDeps, caller: Caller, namespaceId: string, id: string, body: UpdateSecretBody): Promise<Secret> {
  return deps.state.transact(async (uow) => {
    const sealedValue = deps.secrets.seal(body.value, { namespaceId, secretId: id });
    const secret = await uow.secrets.rotate(namespaceId, id, sealedValue);
    if (!secret) throw notFound('Secret');
    await recordAudit(uow, caller, { action: 'secrets.update', namespaceId, resource: { kind: 'secret', id }, details: { version: secret.version } });
    return secretMetadata(secret);
  });
}

export async function deleteSecret(deps: ControllerDeps, caller: Caller, namespaceId: string, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const secret = await uow.secrets.get(namespaceId, id);
    if (!secret) throw notFound('Secret');
    const referrers = await uow.secrets.referrers(namespaceId, id, 32);
    if (referrers.length > 0) {
      throw conflict(
        'The Secret is still referred to.',
        referrers.map((r) => ({ path: `/${r.kind}/${r.id}`, code: 'REFERENCED_BY' as const })),
      );
    }
    const removedAccessBindings = await uow.iam.deleteGrantsOnResource('secret', id);
    await uow.secrets.delete(namespaceId, id);
    await recordAudit(uow, caller, { action: 'secrets.delete', namespaceId, resource: { kind: 'secret', id }, details: { name: secret.name, removedAccessBindings } });
  });
}
