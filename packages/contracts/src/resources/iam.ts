import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, NameSchema, TimestampSchema } from '../common.ts';
import { ActionSchema, PermissionSchema, ResourceKindSchema } from '../iam.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);

export const PrincipalSchema = Closed({
  id: IdSchema('principal'),
  kind: Type.Union([Type.Literal('human'), Type.Literal('service')]),
  name: NameSchema,
  namespaceId: Nullable(IdSchema('namespace')),
  agentId: Nullable(IdSchema('agent')),
  createdAt: TimestampSchema,
});
export type Principal = Static<typeof PrincipalSchema>;

export const CreatePrincipalBodySchema = Closed({
  kind: Type.Union([Type.Literal('human'), Type.Literal('service')]),
  name: NameSchema,
});
export type CreatePrincipalBody = Static<typeof CreatePrincipalBodySchema>;

export const ApiKeySchema = Closed({
  id: IdSchema('api_key'),
  principalId: IdSchema('principal'),
  name: NameSchema,
  /** The first characters of the key, enough to recognise it; never enough to use it. */
  prefix: Type.String(),
  expiresAt: TimestampSchema,
  revokedAt: Nullable(TimestampSchema),
  createdAt: TimestampSchema,
});
export type ApiKey = Static<typeof ApiKeySchema>;

/** Returned once, at creation: the only time the key itself is shown. */
export const CreatedApiKeySchema = Closed({ apiKey: ApiKeySchema, key: Type.String() });

export const MAX_API_KEY_DAYS = 365;
export const CreateApiKeyBodySchema = Closed({
  name: NameSchema,
  expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_API_KEY_DAYS, default: 30 })),
});
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>;

export const RoleSchema = Closed({
  id: IdSchema('role'),
  name: NameSchema,
  permissions: Type.Array(PermissionSchema),
  createdAt: TimestampSchema,
});
export type Role = Static<typeof RoleSchema>;

export const CreateRoleBodySchema = Closed({
  name: NameSchema,
  permissions: Type.Array(PermissionSchema, { minItems: 1, maxItems: 64 }),
});
export type CreateRoleBody = Static<typeof CreateRoleBodySchema>;

export const BindingResourceSchema = Closed({ kind: ResourceKindSchema, id: Type.String({ minLength: 1, maxLength: 64 }) });

export const AccessBindingSchema = Closed({
  id: IdSchema('access_binding'),
  principalId: IdSchema('principal'),
  roleId: IdSchema('role'),
  namespaceId: Nullable(IdSchema('namespace')),
  resource: Nullable(BindingResourceSchema),
  /** Set when a sign-in rule granted it (docs/sign-in.md): it follows the person's groups at every sign-in and refresh. */
  signInRuleId: Nullable(IdSchema('sign_in_rule')),
  createdAt: TimestampSchema,
});
export type AccessBinding = Static<typeof AccessBindingSchema>;

/** Scope: no namespaceId = the whole Installation; namespaceId = that Namespace; resource = one exact resource. */
export const CreateAccessBindingBodySchema = Closed({
  principalId: IdSchema('principal'),
  roleId: IdSchema('role'),
  namespaceId: Type.Optional(IdSchema('namespace')),
  resource: Type.Optional(BindingResourceSchema),
});
export type CreateAccessBindingBody = Static<typeof CreateAccessBindingBodySchema>;

export const RestrictionSchema = Closed({
  id: IdSchema('restriction'),
  principalId: Nullable(IdSchema('principal')),
  action: ActionSchema,
  resourceKind: ResourceKindSchema,
  namespaceId: Nullable(IdSchema('namespace')),
  resourceId: Nullable(Type.String()),
  createdAt: TimestampSchema,
});
export type Restriction = Static<typeof RestrictionSchema>;

/** A restriction only denies. Omitted principalId = everyone; omitted namespace/resource = everywhere. */
export const CreateRestrictionBodySchema = Closed({
  principalId: Type.Optional(IdSchema('principal')),
  action: ActionSchema,
  resourceKind: ResourceKindSchema,
  namespaceId: Type.Optional(IdSchema('namespace')),
  resourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});
export type CreateRestrictionBody = Static<typeof CreateRestrictionBodySchema>;

export const AuditEventSchema = Closed({
  id: IdSchema('audit_event'),
  occurredAt: TimestampSchema,
  actorId: Nullable(Type.String()),
  action: Type.String(),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('denied'), Type.Literal('failure')]),
  namespaceId: Nullable(Type.String()),
  resource: Nullable(Closed({ kind: Type.String(), id: Nullable(Type.String()) })),
  requestId: Nullable(Type.String()),
  details: Type.Object({}, { additionalProperties: true }),
});
export type AuditEvent = Static<typeof AuditEventSchema>;
