/** One REST resource the fake serves: where it lives in the URL space and what its objects are. */
export interface ResourceType {
  group: string; // '' for the core group
  version: string;
  resource: string; // the plural in the URL
  kind: string;
  namespaced: boolean;
  /** Verbs a client may use (pods are made by the deployment controller only, as the brief asks). */
  verbs: string[];
  subresources: string[];
}

const ALL = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const READ_DELETE = ['get', 'list', 'watch', 'delete'];

export const RESOURCES: ResourceType[] = [
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, verbs: ALL, subresources: [] },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ALL, subresources: [] },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, verbs: ALL, subresources: [] },
  { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, verbs: ALL, subresources: [] },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, verbs: READ_DELETE, subresources: ['log', 'proxy'] },
  // Namespaces are implicit: every name exists and is Active (GET only).
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['get'], subresources: [] },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: ALL, subresources: ['status'] },
  { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, verbs: ALL, subresources: [] },
];

export const apiVersionOf = (type: ResourceType): string => (type.group ? `${type.group}/${type.version}` : type.version);

/** `deployments.apps` — how the real server names a resource in its messages. */
export const qualifiedName = (type: ResourceType): string => (type.group ? `${type.resource}.${type.group}` : type.resource);

/** The resource of a kind name (`Deployment`) or plural (`deployments`). */
export function resourceFor(kindOrResource: string): ResourceType {
  const type = RESOURCES.find((r) => r.kind === kindOrResource || r.resource === kindOrResource);
  if (!type) throw new Error(`The fake API server has no resource ${kindOrResource}`);
  return type;
}
