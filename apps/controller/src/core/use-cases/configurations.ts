import { MAX_CONFIGURATION_BYTES, type Configuration, type CreateConfigurationBody, type UpdateConfigurationBody } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, conflict, notFound } from '../errors.ts';
import { can, type Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';
import type { ConfigurationWrite } from '../ports/configuration-repository.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { requireNamespace } from './namespaces.ts';
import { requireSecretReference } from './references.ts';

function assertSize(values: Record<string, unknown>): void {
  if (Buffer.byteLength(JSON.stringify(values), 'utf8') > MAX_CONFIGURATION_BYTES) {
    throw new OccError('PAYLOAD_TOO_LARGE', 'Configuration values may not exceed 256 KiB.', [{ path: '/values', code: 'TOO_LARGE' }]);
  }
}

async function checkBindings(uow: UnitOfWork, caller: Caller, namespaceId: string, bindings: ConfigurationWrite['secretBindings']): Promise<void> {
  for (const [env, { secretId }] of Object.entries(bindings)) {
    await requireSecretReference(uow, caller, namespaceId, secretId, `/secretBindings/${env}/secretId`);
  }
}

export async function createConfiguration(deps: ControllerDeps, caller: Caller, namespaceId: string, body: CreateConfigurationBody): Promise<Configuration> {
  assertSize(body.values);
  return deps.state.transact(async (uow) => {
    await requireNamespace(uow, namespaceId);
    const secretBindings = body.secretBindings ?? {};
    await checkBindings(uow, caller, namespaceId, secretBindings);
    const configuration = await uow.configurations.insert({ id: newId('configuration'), namespaceId, name: body.name, values: body.values, secretBindings });
    await recordAudit(uow, caller, {
      action: 'configurations.create',
      namespaceId,
      resource: { kind: 'configuration', id: configuration.id },
      details: { name: body.name, secretBindingIds: Object.values(secretBindings).map((b) => b.secretId) },
    });
    return configuration;
  });
}

export async function listConfigurations(deps: ControllerDeps, caller: Caller, namespaceId: string, query: ListQuery): Promise<Page<Configuration>> {
  return deps.state.read(async (uow) => {
    await requireNamespace(uow, namespaceId);
    return pageVisible(
      `configurations:${namespaceId}`,
      query,
      (p) => uow.configurations.scan(namespaceId, p),
      (c) => c.id,
      (c) => can(caller, 'read', { kind: 'configuration', id: c.id, namespaceId }),
    );
  });
}

export async function getConfiguration(deps: ControllerDeps, _caller: Caller, namespaceId: string, id: string): Promise<Configuration> {
  const configuration = await deps.state.read((uow) => uow.configurations.get(namespaceId, id));
  if (!configuration) throw notFound('Configuration');
  return configuration;
}

const staleIfMatch = () => new OccError('PRECONDITION_FAILED', 'The Configuration changed since it was read (If-Match does not match its ETag).');

/**
 * Omitted fields are preserved; every update increases the generation by one. With
 * `expectedGeneration` (If-Match), a stale generation → 412 and nothing is written: the check
 * runs under the row lock, in the transaction that writes, so no other update can land between.
 */
export async function updateConfiguration(
  deps: ControllerDeps,
  caller: Caller,
  namespaceId: string,
  id: string,
  body: UpdateConfigurationBody,
  expectedGeneration?: number,
): Promise<Configuration> {
  if (body.values) assertSize(body.values);
  return deps.state.transact(async (uow) => {
    const current = await uow.configurations.getForUpdate(namespaceId, id);
    if (!current) throw notFound('Configuration');
    if (expectedGeneration !== undefined && expectedGeneration !== current.generation) throw staleIfMatch();
    const next: ConfigurationWrite = {
      name: body.name ?? current.name,
      values: body.values ?? current.values,
      secretBindings: body.secretBindings ?? current.secretBindings,
    };
    if (body.secretBindings) await checkBindings(uow, caller, namespaceId, body.secretBindings);
    const updated = await uow.configurations.update(namespaceId, id, next);
    await recordAudit(uow, caller, {
      action: 'configurations.update',
      namespaceId,
      resource: { kind: 'configuration', id },
      details: { generation: updated.generation, changed: Object.keys(body).sort() },
    });
    return updated;
  });
}

export async function deleteConfiguration(deps: ControllerDeps, caller: Caller, namespaceId: string, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const current = await uow.configurations.getForUpdate(namespaceId, id);
    if (!current) throw notFound('Configuration');
    const referrers = await uow.configurations.referrers(namespaceId, id, 32);
    if (referrers.length > 0) {
      throw conflict(
        'The Configuration is still referred to.',
        referrers.map((r) => ({ path: `/${r.kind}/${r.id}`, code: 'REFERENCED_BY' as const })),
      );
    }
    const removedAccessBindings = await uow.iam.deleteGrantsOnResource('configuration', id);
    await uow.configurations.delete(namespaceId, id);
    await recordAudit(uow, caller, {
      action: 'configurations.delete',
      namespaceId,
      resource: { kind: 'configuration', id },
      details: { name: current.name, removedAccessBindings },
    });
  });
}
