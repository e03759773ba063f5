import type { TSchema } from '@sinclair/typebox';
import { DryRunQuerySchema, ListOf, ListQuerySchema } from '../common.ts';
import { AuditEventQuerySchema, AuditExportQuerySchema } from '../resources/audit-query.ts';
import {
  AccessBindingSchema,
  ApiKeySchema,
  AuditEventSchema,
  CreateAccessBindingBodySchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  CreatePrincipalBodySchema,
  CreateRestrictionBodySchema,
  CreateRoleBodySchema,
  PrincipalSchema,
  RestrictionSchema,
  RoleSchema,
} from '../resources/iam.ts';
import { CreateSignInRuleBodySchema, SignInRuleSchema } from '../resources/sign-in.ts';
import { IdParams, PrincipalKeyParams } from './params.ts';
import { CREATE_ERRORS, INSTALLATION_ADMINISTER, MUTATION_ERRORS, READ_ERRORS, type RouteContract, type RouteSchemas } from './route-contract.ts';

type Verb = 'create' | 'list' | 'get' | 'delete';

/** One administration route; its operationId and schemas keep their exact types (handlers are typed from them). */
function adminRoute<const Id extends string, const Schemas extends RouteSchemas>(
  verb: Verb,
  operationId: Id,
  path: string,
  summary: string,
  schemas: Schemas,
  audit?: string,
  dryRun?: true,
) {
  const method = verb === 'create' ? 'POST' : verb === 'delete' ? 'DELETE' : 'GET';
  const successStatus = verb === 'create' ? 201 : verb === 'delete' ? 204 : 200;
  const errors = verb === 'create' ? CREATE_ERRORS : verb === 'delete' ? MUTATION_ERRORS : READ_ERRORS;
  return {
    operationId,
    method,
    path,
    summary,
    tag: 'iam',
    auth: 'api_key',
    successStatus,
    errors,
    // Identity and access control, and the audit log, are Installation administration.
    permission: INSTALLATION_ADMINISTER,
    schemas,
    ...(audit ? { audit } : {}),
    ...(dryRun ? { dryRun } : {}),
  } satisfies RouteContract;
}

function adminCollection<const Noun extends string, Item extends TSchema, Body extends TSchema>(noun: Noun, path: string, item: Item, body: Body, auditPrefix: string) {
  return [
    // A create `occ apply --dry-run=server` may ask as a dry run (RouteContract.dryRun).
    adminRoute('create', `create${noun}`, path, `Create a ${noun}.`, { querystring: DryRunQuerySchema, body, data: item }, `${auditPrefix}.create`, true),
    adminRoute('list', `list${noun}s`, path, `List ${noun}s.`, { querystring: ListQuerySchema, data: ListOf(item) }),
    adminRoute('get', `get${noun}`, `${path}/:id`, `Get a ${noun}.`, { params: IdParams, data: item }),
    adminRoute('delete', `delete${noun}`, `${path}/:id`, `Delete a ${noun}.`, { params: IdParams }, `${auditPrefix}.delete`),
  ] as const;
}

export const iamRoutes = [
  ...adminCollection('Principal', '/principals', PrincipalSchema, CreatePrincipalBodySchema, 'principals'),
  adminRoute(
    'create',
    'createApiKey',
    '/principals/:id/api-keys',
    'Issue an API key; the key is shown once.',
    { params: IdParams, body: CreateApiKeyBodySchema, data: CreatedApiKeySchema },
    'api_keys.create',
  ),
  adminRoute('list', 'listApiKeys', '/principals/:id/api-keys', "List a principal's API keys (metadata only).", {
    params: IdParams,
    querystring: ListQuerySchema,
    data: ListOf(ApiKeySchema),
  }),
  adminRoute('delete', 'revokeApiKey', '/principals/:id/api-keys/:keyId', 'Revoke an API key.', { params: PrincipalKeyParams }, 'api_keys.revoke'),
  ...adminCollection('Role', '/iam/roles', RoleSchema, CreateRoleBodySchema, 'roles'),
  ...adminCollection('AccessBinding', '/iam/access-bindings', AccessBindingSchema, CreateAccessBindingBodySchema, 'access_bindings'),
  ...adminCollection('SignInRule', '/iam/sign-in-rules', SignInRuleSchema, CreateSignInRuleBodySchema, 'sign_in_rules'),
  ...adminCollection('Restriction', '/iam/restrictions', RestrictionSchema, CreateRestrictionBodySchema, 'restrictions'),
  adminRoute('list', 'listAuditEvents', '/audit-events', 'List audit events, newest first, optionally filtered.', {
    querystring: AuditEventQuerySchema,
    data: ListOf(AuditEventSchema),
  }),
  {
    ...adminRoute('list', 'exportAuditEvents', '/audit-events/export', 'Export audit events oldest first as NDJSON, from a cursor (answer header OCC-Next-Cursor).', {
      querystring: AuditExportQuerySchema,
      data: AuditEventSchema,
    }),
    raw: true,
    produces: 'application/x-ndjson',
  },
] as const satisfies readonly RouteContract[];
