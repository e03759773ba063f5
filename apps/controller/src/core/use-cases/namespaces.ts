import type { CreateNamespaceBody, Namespace } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, notFound } from '../errors.ts';
import { can, type Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';

export async function createNamespace(deps: ControllerDeps, caller: Caller, body: CreateNamespaceBody): Promise<Namespace> {
  return deps.state.transact(async (uow) => {
    const ns = await uow.namespaces.insert({ id: newId('namespace'), name: body.name });
    await recordAudit(uow, caller, { action: 'namespaces.create', namespaceId: ns.id, resource: { kind: 'namespace', id: ns.id }, details: { name: ns.name } });
    return ns;
  });
}

export async function listNamespaces(deps: ControllerDeps, caller: Caller, query: ListQuery): Promise<Page<Namespace>> {
  return deps.state.read((uow) =>
    pageVisible(
      'namespaces',
      query,
      (p) => uow.namespaces.scan(p),
      (ns) => ns.id,
      (ns) => can(caller, 'read', { kind: 'namespace', id: ns.id }),
    ),
  );
}

export async function getNamespace(deps: ControllerDeps, _caller: Caller, id: string): Promise<Namespace> {
  const ns = await deps.state.read((uow) => uow.namespaces.get(id));
  if (!ns) throw notFound('Namespace');
  return ns;
}

const MAX_LISTED = 32;

/** Deletes an empty Namespace; otherwise 409 NAMESPACE_NOT_EMPTY with what remains as details. */
export async function deleteNamespace(deps: ControllerDeps, caller: Caller, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const ns = await uow.namespaces.get(id);
    if (!ns) throw notFound('Namespace');
    const remaining = await uow.namespaces.remaining(id, MAX_LISTED);
    if (remaining.length > 0) {
      throw new OccError(
        'NAMESPACE_NOT_EMPTY',
        'The Namespace still holds resources; delete them first.',
        remaining.map((r) => ({ path: `/${r.kind}/${r.id}`, code: 'RESOURCE_REMAINS' as const })),
      );
    }
    const removedAccessBindings = await uow.iam.deleteGrantsOnResource('namespace', id);
    await uow.namespaces.delete(id);
    await recordAudit(uow, caller, { action: 'namespaces.delete', namespaceId: id, resource: { kind: 'namespace', id }, details: { name: ns.name, removedAccessBindings } });
  });
}

/** Use cases that act inside a Namespace first make sure it exists. */
export async function requireNamespace(uow: { namespaces: { get(id: string): Promise<Namespace | null> } }, id: string): Promise<Namespace> {
  const ns = await uow.namespaces.get(id);
  if (!ns) throw notFound('Namespace');
  return ns;
}
