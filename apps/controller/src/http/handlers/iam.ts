import {
  createAccessBinding,
  createRestriction,
  createRole,
  deleteAccessBinding,
  deleteRestriction,
  deleteRole,
  getAccessBinding,
  getRestriction,
  getRole,
  listAccessBindings,
  listRestrictions,
  listRoles,
} from '../../core/use-cases/iam-access-control.ts';
import { AUDIT_EXPORT_CURSOR_HEADER } from '@occ/contracts';
import { exportAuditEvents, listAuditEvents } from '../../core/use-cases/audit-events.ts';
import { createApiKey, createPrincipal, deletePrincipal, getPrincipal, listApiKeys, listPrincipals, revokeApiKey } from '../../core/use-cases/principals.ts';
import { none, ok, type HandlerMap } from './handler.ts';

export const iamHandlers = {
  createPrincipal: async ({ deps, caller, body }) => ok(await createPrincipal(deps, caller, body)),
  listPrincipals: async ({ deps, caller, query }) => ok(await listPrincipals(deps, caller, query)),
  getPrincipal: async ({ deps, caller, params }) => ok(await getPrincipal(deps, caller, params.id)),
  deletePrincipal: async ({ deps, caller, params }) => (await deletePrincipal(deps, caller, params.id), none()),
  createApiKey: async ({ deps, caller, params, body }) => ok(await createApiKey(deps, caller, params.id, body)),
  listApiKeys: async ({ deps, caller, params, query }) => ok(await listApiKeys(deps, caller, params.id, query)),
  revokeApiKey: async ({ deps, caller, params }) => (await revokeApiKey(deps, caller, params.id, params.keyId), none()),
  createRole: async ({ deps, caller, body }) => ok(await createRole(deps, caller, body)),
  listRoles: async ({ deps, caller, query }) => ok(await listRoles(deps, caller, query)),
  getRole: async ({ deps, caller, params }) => ok(await getRole(deps, caller, params.id)),
  deleteRole: async ({ deps, caller, params }) => (await deleteRole(deps, caller, params.id), none()),
  createAccessBinding: async ({ deps, caller, body }) => ok(await createAccessBinding(deps, caller, body)),
  listAccessBindings: async ({ deps, caller, query }) => ok(await listAccessBindings(deps, caller, query)),
  getAccessBinding: async ({ deps, caller, params }) => ok(await getAccessBinding(deps, caller, params.id)),
  deleteAccessBinding: async ({ deps, caller, params }) => (await deleteAccessBinding(deps, caller, params.id), none()),
  createRestriction: async ({ deps, caller, body }) => ok(await createRestriction(deps, caller, body)),
  listRestrictions: async ({ deps, caller, query }) => ok(await listRestrictions(deps, caller, query)),
  getRestriction: async ({ deps, caller, params }) => ok(await getRestriction(deps, caller, params.id)),
  deleteRestriction: async ({ deps, caller, params }) => (await deleteRestriction(deps, caller, params.id), none()),
  listAuditEvents: async ({ deps, caller, query }) => ok(await listAuditEvents(deps, caller, query)),
  // NDJSON, the next cursor in a header (the route is raw: no envelope around the lines).
  exportAuditEvents: async ({ deps, caller, query }) => {
    const page = await exportAuditEvents(deps, caller, query);
    return { data: page.ndjson, headers: { 'content-type': 'application/x-ndjson; charset=utf-8', [AUDIT_EXPORT_CURSOR_HEADER]: page.nextCursor } };
  },
} satisfies Partial<HandlerMap>;
