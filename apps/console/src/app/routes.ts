/**
 * The console's places, as hash routes (`#/ns/<id>/agents`): the controller serves one
 * index.html at `/`, so a reload or a shared link never depends on server-side fallbacks, and
 * API paths and console paths can never collide.
 */
export const AGENT_TABS = ['plugins', 'configuration', 'revisions', 'deployments', 'logs', 'chat'] as const;
export type AgentTab = (typeof AGENT_TABS)[number];

export type Route =
  | { page: 'home' }
  | { page: 'namespaces' }
  | { page: 'audit' }
  | { page: 'agents'; ns: string }
  | { page: 'agent-new'; ns: string }
  | { page: 'agent'; ns: string; agentId: string; tab: AgentTab }
  | { page: 'secrets'; ns: string }
  | { page: 'configurations'; ns: string }
  | { page: 'configuration-new'; ns: string }
  | { page: 'configuration'; ns: string; configurationId: string }
  | { page: 'not-found'; path: string };

const segment = (value: string) => encodeURIComponent(value);

export function routeHref(route: Route): string {
  switch (route.page) {
    case 'home':
      return '#/';
    case 'namespaces':
      return '#/namespaces';
    case 'audit':
      return '#/audit';
    case 'agents':
      return `#/ns/${segment(route.ns)}/agents`;
    case 'agent-new':
      return `#/ns/${segment(route.ns)}/agents/new`;
    case 'agent':
      return `#/ns/${segment(route.ns)}/agents/${segment(route.agentId)}/${route.tab}`;
    case 'secrets':
      return `#/ns/${segment(route.ns)}/secrets`;
    case 'configurations':
      return `#/ns/${segment(route.ns)}/configurations`;
    case 'configuration-new':
      return `#/ns/${segment(route.ns)}/configurations/new`;
    case 'configuration':
      return `#/ns/${segment(route.ns)}/configurations/${segment(route.configurationId)}`;
    case 'not-found':
      return `#${route.path}`;
  }
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  let parts: string[];
  try {
    parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return { page: 'not-found', path };
  }
  const [first, ns, kind, id, tab] = parts;
  if (parts.length === 0) return { page: 'home' };
  if (first === 'namespaces' && parts.length === 1) return { page: 'namespaces' };
  if (first === 'audit' && parts.length === 1) return { page: 'audit' };
  if (first !== 'ns' || !ns) return { page: 'not-found', path };
  if (kind === 'agents') {
    if (id === undefined) return { page: 'agents', ns };
    if (id === 'new' && parts.length === 4) return { page: 'agent-new', ns };
    const agentTab = tab ?? 'plugins';
    if (parts.length <= 5 && (AGENT_TABS as readonly string[]).includes(agentTab)) return { page: 'agent', ns, agentId: id, tab: agentTab as AgentTab };
  }
  if (kind === 'secrets' && parts.length === 3) return { page: 'secrets', ns };
  if (kind === 'configurations') {
    if (id === undefined) return { page: 'configurations', ns };
    if (id === 'new' && parts.length === 4) return { page: 'configuration-new', ns };
    if (parts.length === 4) return { page: 'configuration', ns, configurationId: id };
  }
  return { page: 'not-found', path };
}
