import type { AgentRevisionView } from '@occ/contracts';
import { stableJson } from './stable-json.ts';

/**
 * What a revision runs, as stable JSON: its identity (id, number) and when it was made differ for
 * every revision, so they are left out — a diff of two contents shows only what would run
 * differently. The actor stays: who admitted it is part of the change.
 */
export function revisionContentJson(revision: AgentRevisionView): string {
  const { id: _id, revision: _number, createdAt: _createdAt, namespaceId: _ns, agentId: _agent, ...content } = revision;
  return stableJson(content);
}
