import { RESOURCES } from './resources.ts';

/** The discovery documents (`/api`, `/apis`, `/api/v1`, `/apis/{group}/{version}`) for the served kinds. */
export function discovery(segments: string[]): unknown | undefined {
  const path = segments.join('/');
  if (path === 'api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  if (path === 'apis') {
    const groups = [...new Set(RESOURCES.filter((r) => r.group).map((r) => `${r.group}/${r.version}`))].map((gv) => {
      const [name, version] = gv.split('/') as [string, string];
      const preferred = { groupVersion: gv, version };
      return { name, versions: [preferred], preferredVersion: preferred };
    });
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }
  const groupVersion = segments[0] === 'api' && segments.length === 2 ? segments[1] : segments[0] === 'apis' && segments.length === 3 ? `${segments[1]}/${segments[2]}` : undefined;
  if (!groupVersion) return undefined;
  const resources = RESOURCES.filter((r) => (r.group ? `${r.group}/${r.version}` : r.version) === groupVersion);
  if (!resources.length) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: resources.flatMap((r) => [
      { name: r.resource, singularName: r.kind.toLowerCase(), namespaced: r.namespaced, kind: r.kind, verbs: r.verbs },
      ...r.subresources.map((sub) => ({
        name: `${r.resource}/${sub}`,
        singularName: '',
        namespaced: r.namespaced,
        kind: sub === 'status' ? r.kind : sub === 'log' ? 'Pod' : 'PodProxyOptions',
        verbs: sub === 'status' ? ['get', 'patch', 'update'] : ['get'],
      })),
    ]),
  };
}
