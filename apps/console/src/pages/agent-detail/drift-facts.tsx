import type { AgentDrift } from '@occ/contracts';
import { driftText } from '@occ/contracts/client';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../ui/use-load.ts';

/**
 * The drift as facts on the Agent's page: a badge and the line the CLI prints too, with the
 * Configurations named (read only when the drift names two different ones; one the reader may not
 * read keeps its id).
 */
export function DriftFacts({ ns, drift }: { ns: string; drift: AgentDrift }) {
  const { api } = useConsole();
  const rebound = drift.configuration !== null && drift.configuration.active.id !== drift.configuration.desired.id;
  const configurations = useLoad(async (signal) => (rebound ? api.listAll('listConfigurations', { params: { ns }, signal }) : []), [api, ns, rebound]);
  const configuration = (id: string) => configurations.data?.find((c) => c.id === id)?.name;
  return (
    <>
      <dt>Drift</dt>
      <dd>
        <span class={`badge ${drift.inSync ? 'badge-good' : 'badge-busy'}`}>{drift.inSync ? 'in sync' : 'differs'}</span> {driftText(drift, 'Deploy', { configuration })}
      </dd>
    </>
  );
}
