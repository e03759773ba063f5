import type { AccessBinding, CreateAccessBindingBody, CreateRestrictionBody, CreateRoleBody, ResourceKind, Restriction, Role } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, conflict, invalid, notFound } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';
import type { UnitOfWork } from '../ports/state.ts';

const all = () => true;
const missing = (what: string, path: string) => new OccError('NOT_FOUND', `${what} not found.`, [{ path, code: 'INVALID_VALUE' }]);

export async function createRole(deps: ControllerDeps, caller: Caller, body: CreateRoleBody): Promise<Role> {
  const seen = new Set<string>();
  const permissions = body.permissions.filter((p) => !seen.has(`${p.action}:${p.resourceKind}`) && seen.add(`${p.action}:${p.resourceKind}`));
  return deps.state.transact(async (uow) => {
    const role = await uow.iam.insertRole({ id: newId('role'), name: body.name, permissions });
    await recordAudit(uow, caller, { action: 'roles.create', resource: { kind: 'role', id: role.id }, details: { name: role.name, permissions } });
    return role;
  });
}

export const listRoles = (deps: ControllerDeps, _c: Caller, q: ListQuery): Promise<Page<Role>> =>
  deps.state.read((uow) =>
    pageVisible(
      'roles',
      q,
      (p) => uow.iam.scanRoles(p),
      (r) => r.id,
      all,
    ),
  );

export async function getRole(deps: ControllerDeps, _c: Caller, id: string): Promise<Role> {
  const role = await deps.state.read((uow) => uow.iam.getRole(id));
  if (!role) throw notFound('Role');
  return role;
}

export async function deleteRole(deps: ControllerDeps, caller: Caller, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const role = await uow.iam.getRole(id);
    if (!role) throw notFound('Role');
    if (await uow.iam.roleInUse(id)) throw conflict('The role is still bound; delete its access bindings first.');
    await uow.iam.deleteRole(id);
    await recordAudit(uow, caller, { action: 'roles.delete', resource: { kind: 'role', id }, details: { name: role.name } });
  });
}

async function resourceExists(uow: UnitOfWork, kind: ResourceKind, namespaceId: string, id: string): Promise<boolean> {
  switch (kind) {
    case 'secret':
      return (await uow.secrets.get(namespaceId, id)) !== null;
    case 'configuration':
      return (await uow.configurations.get(namespaceId, id)) !== null;
    case 'agent':
      return (await uow.agents.get(namespaceId, id)) !== null;
    default:
      return false;
  }
}

/** Normalises and checks a binding's (or a sign-in rule's) scope; returns the Namespace it is confined to (if any). */
export async function bindingScope(uow: UnitOfWork, body: Pick<CreateAccessBindingBody, 'namespaceId' | 'resource'>, role: Role): Promise<string | undefined> {
  const { resource } = body;
  if (body.namespaceId && !(await uow.namespaces.get(body.namespaceId))) throw missing('Namespace', '/namespaceId');
  if (!resource) return body.namespaceId;
  if (resource.kind === 'installation') throw invalid('Bind at Installation scope by omitting namespaceId and resource.', [{ path: '/resource/kind', code: 'INVALID_VALUE' }]);
  if (role.permissions.some((p) => p.action === 'create' && p.resourceKind === resource.kind)) {
    throw invalid('create is checked on the parent collection; an exact-resource binding cannot grant it.', [{ path: '/roleId', code: 'INVALID_COMBINATION' }]);
  }
  if (resource.kind === 'namespace') {
    if (body.namespaceId && body.namespaceId !== resource.id)
      throw invalid('namespaceId must match the Namespace resource.', [{ path: '/namespaceId', code: 'INVALID_COMBINATION' }]);
    if (!(await uow.namespaces.get(resource.id))) throw missing('Namespace', '/resource/id');
    return resource.id;
  }
  if (!body.namespaceId) throw invalid('A namespaced resource needs its namespaceId.', [{ path: '/namespaceId', code: 'REQUIRED' }]);
  if (!(await resourceExists(uow, resource.kind, body.namespaceId, resource.id))) throw missing('Resource', '/resource/id');
  return body.namespaceId;
}

export async function createAccessBinding(deps: ControllerDeps, caller: Caller, body: CreateAccessBindingBody): Promise<AccessBinding> {
  return deps.state.transact(async (uow) => {
    if (!(await uow.iam.getPrincipal(body.principalId))) throw missing('Principal', '/principalId');
    const role = await uow.iam.getRole(body.roleId);
    if (!role) throw missing('Role', '/roleId');
    const namespaceId = await bindingScope(uow, body, role);
    const binding = await uow.iam.insertBinding({ ...body, ...(namespaceId ? { namespaceId } : {}), id: newId('access_binding') });
    await recordAudit(uow, caller, {
      action: 'access_bindings.create',
      namespaceId: namespaceId ?? null,
      resource: { kind: 'access_binding', id: binding.id },
      details: { principalId: body.principalId, roleId: body.roleId, target: body.resource ?? null },
    });
    return binding;
  });
}

export const listAccessBindings = (deps: ControllerDeps, _c: Caller, q: ListQuery): Promise<Page<AccessBinding>> =>
  deps.state.read((uow) =>
    pageVisible(
      'access_bindings',
      q,
      (p) => uow.iam.scanBindings(p),
      (b) => b.id,
      all,
    ),
  );

export async function getAccessBinding(deps: ControllerDeps, _c: Caller, id: string): Promise<AccessBinding> {
  const binding = await deps.state.read((uow) => uow.iam.getBinding(id));
  if (!binding) throw notFound('Access binding');
  return binding;
}

export async function deleteAccessBinding(deps: ControllerDeps, caller: Caller, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const binding = await uow.iam.getBinding(id);
    if (!binding) throw notFound('Access binding');
    await uow.iam.deleteBinding(id);
    await recordAudit(uow, caller, {
      action: 'access_bindings.delete',
      namespaceId: binding.namespaceId,
      resource: { kind: 'access_binding', id },
      details: { principalId: binding.principalId, roleId: binding.roleId },
    });
  });
}

export async function createRestriction(deps: ControllerDeps, caller: Caller, body: CreateRestrictionBody): Promise<Restriction> {
  return deps.state.transact(async (uow) => {
    if (body.principalId && !(await uow.iam.getPrincipal(body.principalId))) throw missing('Principal', '/principalId');
    if (body.namespaceId && !(await uow.namespaces.get(body.namespaceId))) throw missing('Namespace', '/namespaceId');
    const restriction = await uow.iam.insertRestriction({ ...body, id: newId('restriction') });
    await recordAudit(uow, caller, {
      action: 'restrictions.create',
      namespaceId: body.namespaceId ?? null,
      resource: { kind: 'restriction', id: restriction.id },
      details: { ...body },
    });
    return restriction;
  });
}

export const listRestrictions = (deps: ControllerDeps, _c: Caller, q: ListQuery): Promise<Page<Restriction>> =>
  deps.state.read((uow) =>
    pageVisible(
      'restrictions',
      q,
      (p) => uow.iam.scanRestrictions(p),
      (r) => r.id,
      all,
    ),
  );

export async function getRestriction(deps: ControllerDeps, _c: Caller, id: string): Promise<Restriction> {
  const restriction = await deps.state.read((uow) => uow.iam.getRestriction(id));
  if (!restriction) throw notFound('Restriction');
  return restriction;
}

export async function deleteRestriction(deps: ControllerDeps, caller: Caller, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const restriction = await uow.iam.getRestriction(id);
    if (!restriction) throw notFound('Restriction');
    await uow.iam.deleteRestriction(id);
    await recordAudit(uow, caller, {
      action: 'restrictions.delete',
      namespaceId: restriction.namespaceId,
      resource: { kind: 'restriction', id },
      details: { action: restriction.action, resourceKind: restriction.resourceKind },
    });
  });
}
