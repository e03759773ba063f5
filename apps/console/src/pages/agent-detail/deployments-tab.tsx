import { useEffect, useRef } from 'preact/hooks';
import { useConsole } from '../../app/console-context.ts';
import { DeployActions } from '../../deployments/deploy-actions.tsx';
import { DeploymentEventLog } from '../../deployments/deployment-event-log.tsx';
import { DeploymentSummary, isInProgress } from '../../deployments/deployment-summary.tsx';
import { RevisionHistory } from '../../deployments/revision-history.tsx';
import { RuntimeFacts } from '../../deployments/runtime-facts.tsx';
import { useDeploymentProgress } from '../../deployments/use-deployment-progress.ts';
import { ErrorMessage } from '../../ui/error-message.tsx';
import { useLoad } from '../../ui/use-load.ts';
import type { AgentTabProps } from './agent-detail-page.tsx';

/** The newest revision and this many before it (the Revisions tab has them all). */
const REVISIONS_SHOWN = 11;

/**
 * Deploy and stop the Agent; the newest revision's deployment followed live from its event
 * stream; once final, its status and what runs now; earlier revisions' states at a glance.
 */
export function DeploymentsTab({ ns, agent, reloadAgent }: AgentTabProps) {
  const { api } = useConsole();
  const revisions = useLoad(
    async (signal) => (await api.call('listAgentRevisions', { params: { ns, id: agent.id }, query: { limit: REVISIONS_SHOWN }, signal })).data.items,
    [api, ns, agent.id],
  );
  const newest = revisions.data?.[0];
  const status = useLoad(
    async (signal) => (newest ? (await api.call('getDeploymentStatus', { params: { ns, id: agent.id, rev: newest.id }, signal })).data : undefined),
    [api, ns, agent.id, newest?.id],
  );
  const progress = useDeploymentProgress(api, ns, agent.id, newest?.id);

  // Each event may change the recorded status (a claim, an outcome): re-read it when the phase
  // moves on or the outcome arrives, not on every line; the Agent too, whose pointer may move.
  const lastType = progress.events.at(-1)?.data.type;
  const reloadStatus = useRef(status.reload);
  reloadStatus.current = status.reload;
  const reloadAgentRef = useRef(reloadAgent);
  reloadAgentRef.current = reloadAgent;
  useEffect(() => {
    if (progress.events.length === 0) return;
    reloadStatus.current();
    if (lastType === 'succeeded' || lastType === 'stopped') reloadAgentRef.current();
  }, [progress.activity, lastType]);

  const afterChange = () => {
    revisions.reload();
    reloadAgent();
  };

  return (
    <div>
      <h2>Deployments</h2>
      <DeployActions
        ns={ns}
        agent={agent}
        onDeployed={afterChange}
        onStopped={() => {
          afterChange();
          status.reload();
        }}
      />
      {revisions.status === 'error' ? <ErrorMessage error={revisions.error} context="The revisions could not be loaded" /> : null}
      {revisions.status === 'loading' && !revisions.data ? <p aria-busy="true">Loading the revisions…</p> : null}
      {revisions.data && !newest ? <p>Nothing deployed yet: Deploy saves the Agent's current settings as revision 1 and runs it.</p> : null}
      {newest ? (
        <>
          <h2>Newest revision</h2>
          {status.status === 'error' ? <ErrorMessage error={status.error} context="The deployment status could not be loaded" /> : null}
          {status.data && status.data.revisionId === newest.id ? <DeploymentSummary status={status.data} revision={newest} activity={progress.activity} /> : null}
          {status.status === 'loading' && status.data?.revisionId !== newest.id ? <p aria-busy="true">Loading the deployment…</p> : null}
          <div class="button-row">
            <button
              type="button"
              onClick={() => {
                status.reload();
                reloadAgent();
              }}
              disabled={status.status === 'loading'}
            >
              Read the status again
            </button>
          </div>
          <DeploymentEventLog progress={progress} revision={newest.revision} />
          {status.data && status.data.revisionId === newest.id && !isInProgress(status.data) ? (
            <RuntimeFacts ns={ns} agentId={agent.id} revision={newest} status={status.data} events={progress.events} />
          ) : null}
          <RevisionHistory ns={ns} agentId={agent.id} revisions={revisions.data!.slice(1)} />
        </>
      ) : null}
    </div>
  );
}
