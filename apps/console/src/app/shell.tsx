import type { Namespace } from '@occ/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { AgentCreatePage } from '../pages/agent-create-page.tsx';
import { AgentDetailPage } from '../pages/agent-detail/agent-detail-page.tsx';
import { AgentsPage } from '../pages/agents-page.tsx';
import { AuditPage } from '../pages/audit-page.tsx';
import { ConfigurationEditPage } from '../pages/configuration-edit-page.tsx';
import { ConfigurationsPage } from '../pages/configurations-page.tsx';
import { NamespacesPage } from '../pages/namespaces-page.tsx';
import { SecretsPage } from '../pages/secrets-page.tsx';
import { ErrorMessage } from '../ui/error-message.tsx';
import { useLoad, type Load } from '../ui/use-load.ts';
import { useConsole } from './console-context.ts';
import { routeHref, type Route } from './routes.ts';

function namespaceOf(route: Route): string | undefined {
  return 'ns' in route ? route.ns : undefined;
}

/** The signed-in frame: the Namespace switcher, the sections of the current Namespace, the page. */
export function Shell({ route }: { route: Route }) {
  const { api, session, navigate, signOut } = useConsole();
  const namespaces = useLoad((signal) => api.listAll('listNamespaces', { signal }), [api]);
  const ns = namespaceOf(route);
  const known = namespaces.data ?? [];
  const [signOutError, setSignOutError] = useState<unknown>(null);
  const mainRef = useRef<HTMLElement>(null);
  // After signing in and after each move to another page, focus goes to the content unless it is
  // already there: never left on <body> (a removed link) or in the header a keyboard user left.
  const place = routeHref(route);
  useEffect(() => {
    const main = mainRef.current;
    if (main && !main.contains(document.activeElement)) main.focus();
  }, [place]);

  // `#/` goes to the first Namespace's Agents (or to Namespaces when there is none yet).
  useEffect(() => {
    if (route.page !== 'home' || namespaces.status !== 'loaded') return;
    const first = namespaces.data[0];
    navigate(first ? { page: 'agents', ns: first.id } : { page: 'namespaces' });
  }, [route, namespaces.status]);

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <a class="brand" href={routeHref({ page: 'home' })}>
          OCC
        </a>
        <NamespaceSwitcher namespaces={known} current={ns} onChange={(id) => navigate({ page: 'agents', ns: id })} />
        <nav aria-label="Sections" class="sections">
          <ul>
            {ns ? (
              <>
                <li>
                  <SectionLink route={{ page: 'agents', ns }} current={route} label="Agents" />
                </li>
                <li>
                  <SectionLink route={{ page: 'configurations', ns }} current={route} label="Configurations" />
                </li>
                <li>
                  <SectionLink route={{ page: 'secrets', ns }} current={route} label="Secrets" />
                </li>
              </>
            ) : null}
            <li>
              <SectionLink route={{ page: 'namespaces' }} current={route} label="Namespaces" />
            </li>
            <li>
              <SectionLink route={{ page: 'audit' }} current={route} label="Audit" />
            </li>
          </ul>
        </nav>
        <div class="who">
          <span class="muted small">
            Signed in as <strong>{session.principalName}</strong>
          </span>
          <button type="button" class="button-quiet" onClick={() => signOut().catch(setSignOutError)}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={mainRef}>
        {namespaces.status === 'error' ? <ErrorMessage error={namespaces.error} context="Namespaces could not be loaded" /> : null}
        {signOutError ? <ErrorMessage error={signOutError} context="Sign-out failed: you are still signed in" /> : null}
        {/* Keyed by Namespace: another Namespace's page starts afresh (no list of the previous one). */}
        <Page key={ns ?? ''} route={route} namespaces={namespaces} />
      </main>
    </div>
  );
}

function SectionLink({ route, current, label }: { route: Route; current: Route; label: string }) {
  const active = current.page.startsWith(route.page.replace(/s$/, ''));
  return (
    <a href={routeHref(route)} aria-current={active ? 'page' : undefined} class={active ? 'section section-current' : 'section'}>
      {label}
    </a>
  );
}

/**
 * Chooses the Namespace with an explicit "Switch" (a form): a select that navigated on change
 * would leave the page at the first arrow key a keyboard user presses.
 */
function NamespaceSwitcher({ namespaces, current, onChange }: { namespaces: readonly Namespace[]; current: string | undefined; onChange: (id: string) => void }) {
  const [chosen, setChosen] = useState(current ?? '');
  useEffect(() => setChosen(current ?? ''), [current]);
  if (namespaces.length === 0) return null;
  return (
    <form
      class="namespace-switcher"
      aria-label="Namespace"
      onSubmit={(event) => {
        event.preventDefault();
        if (chosen && chosen !== current) onChange(chosen);
      }}
    >
      <label>
        <span class="visually-hidden">Namespace</span>
        <select value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
          {current === undefined ? <option value="">Choose a Namespace</option> : null}
          {namespaces.map((namespace) => (
            <option key={namespace.id} value={namespace.id}>
              {namespace.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={!chosen || chosen === current}>
        Switch
      </button>
    </form>
  );
}

function Page({ route, namespaces }: { route: Route; namespaces: Load<Namespace[]> & { reload: () => void } }) {
  switch (route.page) {
    case 'home':
      return <p aria-busy="true">Loading…</p>;
    case 'namespaces':
      return <NamespacesPage list={namespaces} onChanged={namespaces.reload} />;
    case 'audit':
      return <AuditPage namespaces={namespaces.data ?? []} />;
    case 'agents':
      return <AgentsPage ns={route.ns} />;
    case 'agent-new':
      return <AgentCreatePage ns={route.ns} />;
    case 'agent':
      // Keyed by the Agent: moving to another Agent starts every tab afresh (no draft, notice or
      // request of the previous one survives).
      return <AgentDetailPage key={`${route.ns}/${route.agentId}`} ns={route.ns} agentId={route.agentId} tab={route.tab} />;
    case 'secrets':
      return <SecretsPage ns={route.ns} />;
    case 'configurations':
      return <ConfigurationsPage ns={route.ns} />;
    case 'configuration-new':
      return <ConfigurationEditPage ns={route.ns} configurationId={null} />;
    case 'configuration':
      return <ConfigurationEditPage ns={route.ns} configurationId={route.configurationId} />;
    case 'not-found':
      return (
        <section>
          <h1>Not found</h1>
          <p>
            There is no page at <code>{route.path}</code>. <a href={routeHref({ page: 'home' })}>Go to the start</a>.
          </p>
        </section>
      );
  }
}
