import type { TSchema } from '@sinclair/typebox';
import { ListOf, ListQuerySchema } from '../common.ts';
import {
  AccessBindingSchema, ApiKeySchema, AuditEventSchema, CreateAccessBindingBodySchema, CreateApiKeyBodySchema,
  CreatedApiKeySchema, CreatePrincipalBodySchema, CreateRestrictionBodySchema, CreateRoleBodySchema, PrincipalSchema,
  RestrictionSchema, RoleSchema,
} from '../resources/iam.ts';
import { IdParams, PrincipalKeyParams } from './params.ts';
import { CREATE_ERRORS, MUTATION_ERRORS, READ_ERRORS, type RouteContract, type RouteSchemas } from './route-contract.ts';

// Identity and access policy, and the audit log, are Installation administration.
const ADMINISTER = { actions: ['administer'], resourceKind: 'installation', target: { scope: 'installation' }, mode: 'exact' } as const;

type Verb = 'create' | 'list' | 'get' | 'delete';

function adminRoute(verb: Verb, operationId: string, path: string, summary: string, schemas: RouteSchemas, audit?: string): RouteContract {
  const method = verb === 'create' ? 'POST' : verb === 'delete' ? 'DELETE' : 'GET';
  const successStatus = verb === 'create' ? 201 : verb === 'delete' ? 204 : 200;
  const errors = verb === 'create' ? CREATE_ERRORS : verb === 'delete' ? MUTATION_ERRORS : READ_ERRORS;
  return { operationId, method, path, summary, tag: 'iam', auth: 'api_key', successStatus, errors, permission: ADMINISTER, schemas, ...(audit ? { audit } : {}) };
}

function policyCollection(noun: string, path: string, item: TSchema, body: TSchema, auditPrefix: string): RouteContract[] {
  return [
    adminRoute('create', `create${noun}`, path, `Create a ${noun}.`, { body, data: item }, `${auditPrefix}.create`),
    adminRoute('list', `list${noun}s`, path, `List ${noun}s.`, { querystring: ListQuerySchema, data: ListOf(item) }),
    adminRoute('get', `get${noun}`, `${path}/:id`, `Get a ${noun}.`, { params: IdParams, data: item }),
    adminRoute('delete', `delete${noun}`, `${path}/:id`, `Delete a ${noun}.`, { params: IdParams }, `${auditPrefix}.delete`),
  ];
}

export const iamRoutes: RouteContract[] = [
  ...policyCollection('Principal', '/principals', PrincipalSchema, CreatePrincipalBodySchema, 'principals'),
  adminRoute('create', 'createApiKey', '/principals/:id/api-keys', 'Issue an API key; the key is shown once.', { params: IdParams, body: CreateApiKeyBodySchema, data: CreatedApiKeySchema }, 'api_keys.create'),
  adminRoute('list', 'listApiKeys', '/principals/:id/api-keys', "List a principal's API keys (metadata only).", { params: IdParams, querystring: ListQuerySchema, data: ListOf(ApiKeySchema) }),
  adminRoute('delete', 'revokeApiKey', '/principals/:id/api-keys/:keyId', 'Revoke an API key.', { params: PrincipalKeyParams }, 'api_keys.revoke'),
  ...policyCollection('Role', '/iam/roles', RoleSchema, CreateRoleBodySchema, 'roles'),
  ...policyCollection('AccessBinding', '/iam/access-bindings', AccessBindingSchema, CreateAccessBindingBodySchema, 'access_bindings'),
  ...policyCollection('Restriction', '/iam/restrictions', RestrictionSchema, CreateRestrictionBodySchema, 'restrictions'),
  adminRoute('list', 'listAuditEvents', '/audit-events', 'List audit events, newest first.', { querystring: ListQuerySchema, data: ListOf(AuditEventSchema) }),
];
