import { DryRunQuerySchema, ListOf, ListQuerySchema } from '../common.ts';
import { CreateNamespaceBodySchema, NamespaceSchema } from '../resources/namespace.ts';
import { NsParams } from './params.ts';
import { CREATE_ERRORS, MUTATION_ERRORS, READ_ERRORS, type RouteContract } from './route-contract.ts';

export const namespaceRoutes = [
  {
    operationId: 'createNamespace',
    method: 'POST',
    path: '/namespaces',
    summary: 'Create a Namespace.',
    tag: 'namespaces',
    auth: 'api_key',
    successStatus: 201,
    errors: CREATE_ERRORS,
    audit: 'namespaces.create',
    dryRun: true,
    permission: { actions: ['create'], resourceKind: 'namespace', target: { scope: 'namespace_collection' }, mode: 'exact' },
    schemas: { querystring: DryRunQuerySchema, body: CreateNamespaceBodySchema, data: NamespaceSchema },
  },
  {
    operationId: 'listNamespaces',
    method: 'GET',
    path: '/namespaces',
    summary: 'List the Namespaces the caller may read.',
    tag: 'namespaces',
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: { actions: ['read'], resourceKind: 'namespace', target: { scope: 'namespace_collection' }, mode: 'filter' },
    schemas: { querystring: ListQuerySchema, data: ListOf(NamespaceSchema) },
  },
  {
    operationId: 'getNamespace',
    method: 'GET',
    path: '/namespaces/:ns',
    summary: 'Get a Namespace.',
    tag: 'namespaces',
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: { actions: ['read'], resourceKind: 'namespace', target: { scope: 'namespace' }, mode: 'exact' },
    schemas: { params: NsParams, data: NamespaceSchema },
  },
  {
    operationId: 'deleteNamespace',
    method: 'DELETE',
    path: '/namespaces/:ns',
    summary: 'Delete an empty Namespace (409 NAMESPACE_NOT_EMPTY lists what remains).',
    tag: 'namespaces',
    auth: 'api_key',
    successStatus: 204,
    errors: MUTATION_ERRORS,
    audit: 'namespaces.delete',
    permission: { actions: ['delete'], resourceKind: 'namespace', target: { scope: 'namespace' }, mode: 'exact' },
    schemas: { params: NsParams },
  },
] as const satisfies readonly RouteContract[];
