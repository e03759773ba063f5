import { Type, type Static } from '@sinclair/typebox';

/** `message`: talk to an Agent through OCC (`agent:message`, POST …/agents/:id/messages). */
export const ACTIONS = ['create', 'read', 'update', 'delete', 'deploy', 'operate', 'administer', 'message'] as const;
export type Action = (typeof ACTIONS)[number];

export const RESOURCE_KINDS = ['installation', 'namespace', 'secret', 'configuration', 'agent', 'agent_revision'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export const ActionSchema = Type.Union(ACTIONS.map((a) => Type.Literal(a)));
export const ResourceKindSchema = Type.Union(RESOURCE_KINDS.map((k) => Type.Literal(k)));

export const PermissionSchema = Type.Object({ action: ActionSchema, resourceKind: ResourceKindSchema }, { additionalProperties: false });
export type Permission = Static<typeof PermissionSchema>;

/** A resource an authorization decision is about. `id` absent = the collection. */
export interface ResourceRef {
  kind: ResourceKind;
  id?: string;
  namespaceId?: string;
}
