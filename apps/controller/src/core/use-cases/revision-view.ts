import type { AgentRevision, AgentRevisionView } from '@occ/contracts';
import { can, type Caller } from '../iam/access.ts';

/**
 * A revision as `caller` may see it. Agent `read` shows the revision, but its Configuration
 * snapshot (values and Secret bindings) is that Configuration's content, so it needs
 * `configuration:read` on the snapshot's Configuration; without it only the id and generation
 * remain, marked `withheld`. The decision is about the snapshot's Configuration id whether or
 * not that Configuration still exists: deleting a Configuration removes its exact-resource
 * bindings, so afterwards only Namespace- or Installation-wide readers see its old snapshots.
 */
export function revisionView(caller: Caller, revision: AgentRevision): AgentRevisionView {
  const { id, generation, values, secretBindings } = revision.configuration;
  const readable = can(caller, 'read', { kind: 'configuration', id, namespaceId: revision.namespaceId });
  return {
    ...revision,
    configuration: readable ? { id, generation, withheld: false, values, secretBindings } : { id, generation, withheld: true },
  };
}
