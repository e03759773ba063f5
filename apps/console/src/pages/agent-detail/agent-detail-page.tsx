import type { Agent } from '@occ/contracts';
import { useConsole } from '../../app/console-context.ts';
import { routeHref, type AgentTab } from '../../app/routes.ts';
import { ErrorMessage } from '../../ui/error-message.tsx';
import { activeRevisionWords } from '../../ui/revision-words.ts';
import { TabNav } from '../../ui/tabs.tsx';
import { useLoad } from '../../ui/use-load.ts';
import { ChatTab } from './chat-tab.tsx';
import { ConfigurationTab } from './configuration-tab.tsx';
import { DeploymentsTab } from './deployments-tab.tsx';
import { DriftFacts } from './drift-facts.tsx';
import { LogsTab } from './logs-tab.tsx';
import { PluginsTab } from './plugins-tab.tsx';
import { RevisionsTab } from './revisions-tab.tsx';

/** What every tab of an Agent gets: the Agent as last read, its ETag, and a way to read it again. */
export interface AgentTabProps {
  ns: string;
  agent: Agent;
  /** For If-Match on saves: a concurrent change answers 412 instead of being overwritten. */
  etag: string | undefined;
  reloadAgent: () => void;
}

const TAB_LABELS: Record<AgentTab, string> = {
  plugins: 'Plugins',
  configuration: 'Configuration',
  revisions: 'Revisions',
  deployments: 'Deployments',
  logs: 'Logs',
  chat: 'Chat',
};

export function AgentDetailPage({ ns, agentId, tab }: { ns: string; agentId: string; tab: AgentTab }) {
  const { api } = useConsole();
  const agent = useLoad(
    async (signal) => {
      const result = await api.call('getAgent', { params: { ns, id: agentId }, signal });
      return { agent: result.data, etag: result.etag };
    },
    [api, ns, agentId],
  );
  // Read again whenever the Agent changes (an edit, a rollback, a new active revision).
  const version = agent.data ? `${agent.data.agent.version}:${agent.data.agent.activeRevisionId}` : null;
  const drift = useLoad(async (signal) => (version === null ? null : (await api.call('getAgentDrift', { params: { ns, id: agentId }, signal })).data), [api, ns, agentId, version]);

  if (agent.status === 'error' && !agent.data) return <ErrorMessage error={agent.error} context="The Agent could not be loaded" />;
  if (!agent.data) return <p aria-busy="true">Loading the Agent…</p>;
  const props: AgentTabProps = { ns, agent: agent.data.agent, etag: agent.data.etag, reloadAgent: agent.reload };
  const tabs = (Object.keys(TAB_LABELS) as AgentTab[]).map((id) => ({ id, label: TAB_LABELS[id], href: routeHref({ page: 'agent', ns, agentId, tab: id }) }));
  return (
    <section>
      <p class="small">
        <a href={routeHref({ page: 'agents', ns })}>Agents</a> /
      </p>
      <h1>{props.agent.name}</h1>
      <dl class="facts">
        <dt>Harness</dt>
        <dd>{props.agent.harness}</dd>
        <dt>Desired state</dt>
        <dd>{props.agent.desiredState}</dd>
        <dt>Active revision</dt>
        <dd>{activeRevisionWords(props.agent.activeRevisionId, { status: drift.status, revisionId: drift.data?.activeRevisionId, revision: drift.data?.activeRevision })}</dd>
        {drift.data ? <DriftFacts ns={ns} drift={drift.data} /> : null}
      </dl>
      {agent.status === 'error' ? <ErrorMessage error={agent.error} context="The Agent could not be refreshed" /> : null}
      <TabNav label="Agent sections" tabs={tabs} current={tab}>
        {tab === 'plugins' ? <PluginsTab {...props} /> : null}
        {tab === 'configuration' ? <ConfigurationTab {...props} /> : null}
        {tab === 'revisions' ? <RevisionsTab {...props} /> : null}
        {tab === 'deployments' ? <DeploymentsTab {...props} /> : null}
        {tab === 'logs' ? <LogsTab {...props} /> : null}
        {tab === 'chat' ? <ChatTab {...props} /> : null}
      </TabNav>
    </section>
  );
}
