import { describe, expect, it } from 'vitest';
import type { AgentDrift } from '@occ/contracts';
import { driftText as describeDrift } from '@occ/contracts/client';

const driftText = (drift: AgentDrift) => describeDrift(drift, 'occ deploy');

const inSync: AgentDrift = {
  agentId: 'agt_00000000-0000-4000-8000-000000000001',
  activeRevisionId: 'rev_00000000-0000-4000-8000-000000000001',
  activeRevision: 3,
  inSync: true,
  plugins: { added: [], removed: [], changed: [] },
  pluginApprovers: false,
  harnessAuth: false,
  configuration: null,
  computeDriver: null,
};
const cfg = (id: string, generation: number) => ({ id: `cfg_00000000-0000-4000-8000-00000000000${id}`, generation });

describe('occ status: the drift in words', () => {
  it('says when nothing runs, when a plain deploy changes nothing, and every difference otherwise', () => {
    expect(driftText({ ...inSync, activeRevisionId: null, activeRevision: null, inSync: false })).toBe('No active revision: a deploy runs the Agent as it is.');
    expect(driftText(inSync)).toBe('In sync: revision 3 runs the Agent as it is.');
    expect(
      driftText({
        ...inSync,
        inSync: false,
        plugins: { added: ['openclaw:@openclaw/nostr'], removed: ['openclaw:llm-task', 'openclaw:diffs'], changed: ['codex:linear@openai-curated-remote'] },
        pluginApprovers: true,
        harnessAuth: true,
        configuration: { active: cfg('1', 2), desired: cfg('1', 4) },
        computeDriver: { active: 'local', desired: 'docker' },
      }),
    ).toBe(
      'Drift: the Agent differs from active revision 3 (plugins added: openclaw:@openclaw/nostr; plugins removed: openclaw:llm-task, openclaw:diffs; ' +
        'plugins changed: codex:linear@openai-curated-remote; default approvers changed; harness auth changed; configuration generation 2 → 4; compute local → docker); occ deploy applies it.',
    );
    expect(driftText({ ...inSync, inSync: false, configuration: { active: cfg('1', 1), desired: cfg('2', 1) } })).toBe(
      `Drift: the Agent differs from active revision 3 (configuration ${cfg('1', 1).id} → ${cfg('2', 1).id}); occ deploy applies it.`,
    );
  });
});
