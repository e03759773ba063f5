import { useConsole } from '../app/console-context.ts';
import { routeHref } from '../app/routes.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { useLoad } from '../ui/use-load.ts';
import { AgentRow } from './agents/agent-row.tsx';

/** The Namespace's Agents: what runs, and how its last deployment went, at a glance. */
export function AgentsPage({ ns }: { ns: string }) {
  const { api } = useConsole();
  // Every page at once for now (the API pages at its limit); each row then loads its own summary.
  const list = useLoad((signal) => api.listAll('listAgents', { params: { ns }, signal }), [api, ns]);
  const createHref = routeHref({ page: 'agent-new', ns });

  return (
    <section aria-labelledby="agents-heading">
      <div class="page-header">
        <h1 id="agents-heading">Agents</h1>
        <a class="link-button link-button-primary" href={createHref}>
          Create Agent
        </a>
      </div>
      {list.status === 'error' ? <ErrorMessage error={list.error} context="Agents could not be loaded" /> : null}
      {list.status === 'loading' && !list.data ? <p aria-busy="true">Loading Agents…</p> : null}
      {list.data && list.data.length === 0 ? (
        <div class="notice">
          <p>No Agent in this Namespace yet.</p>
          <p>
            An Agent runs a harness (OpenClaw or Codex) with a Configuration. If this Namespace has no Configuration yet,{' '}
            <a href={routeHref({ page: 'configuration-new', ns })}>create a Configuration</a> first; a Codex Agent that uses hosted plugins also needs a <code>codex_pat</code>{' '}
            <a href={routeHref({ page: 'secrets', ns })}>Secret</a> (you can create one while creating the Agent). Then <a href={createHref}>create an Agent</a>.
          </p>
        </div>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <div class="table-wrap">
          <table class="data-table agents-table">
            <caption class="visually-hidden">Agents</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Harness</th>
                <th scope="col">Active revision</th>
                <th scope="col">Last deployment</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((agent) => (
                <AgentRow key={agent.id} ns={ns} agent={agent} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
