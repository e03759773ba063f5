import { DryRunQuerySchema, ListOf, ListQuerySchema } from '../common.ts';
import { CreateNamespaceBodySchema, NamespaceSchema } from '../resources/namespace.ts';
import { NamespaceSshHostSchema, PutNamespaceSshHostBodySchema } from '../resources/namespace-ssh-host.ts';
import { NsParams } from './params.ts';
import { CREATE_ERRORS, INSTALLATION_ADMINISTER, MUTATION_ERRORS, READ_ERRORS, type RouteContract } from './route-contract.ts';

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

/**
 * A Namespace's SSH host (docs/compute-ssh.md, "Hosts"): where the `ssh` ComputeDriver runs the
 * Namespace's Agents. Anyone who may read the Namespace sees it; saving or removing it is
 * Installation administration, because the host receives the Namespace's Secret values at every
 * start: a Namespace's own administrators must not point its Agents at a host of their choosing.
 */
export const namespaceSshHostRoutes = [
  {
    operationId: 'getNamespaceSshHost',
    method: 'GET',
    path: '/namespaces/:ns/ssh-host',
    summary: "Get the Namespace's SSH host (404 when it has none).",
    tag: 'namespaces',
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: { actions: ['read'], resourceKind: 'namespace', target: { scope: 'namespace' }, mode: 'exact' },
    schemas: { params: NsParams, data: NamespaceSshHostSchema },
  },
  {
    operationId: 'putNamespaceSshHost',
    method: 'PUT',
    path: '/namespaces/:ns/ssh-host',
    summary:
      "Save the Namespace's SSH host, checked by the installation's ComputeDriver (409 SSH_HOSTS_UNSUPPORTED without one that runs Agents on SSH hosts, 409 NAMESPACE_AGENTS_ACTIVE while an Agent runs).",
    tag: 'namespaces',
    auth: 'api_key',
    successStatus: 200,
    errors: MUTATION_ERRORS,
    audit: 'ssh_hosts.put',
    permission: INSTALLATION_ADMINISTER,
    schemas: { params: NsParams, body: PutNamespaceSshHostBodySchema, data: NamespaceSshHostSchema },
  },
  {
    operationId: 'deleteNamespaceSshHost',
    method: 'DELETE',
    path: '/namespaces/:ns/ssh-host',
    summary: "Remove the Namespace's SSH host (409 NAMESPACE_AGENTS_ACTIVE while an Agent runs).",
    tag: 'namespaces',
    auth: 'api_key',
    successStatus: 204,
    errors: MUTATION_ERRORS,
    audit: 'ssh_hosts.delete',
    permission: INSTALLATION_ADMINISTER,
    schemas: { params: NsParams },
  },
] as const satisfies readonly RouteContract[];
