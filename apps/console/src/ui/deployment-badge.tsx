import type { DeploymentState } from '@occ/contracts';

/** A deployment's state at a glance: its word, with a colour that never carries meaning alone. */
const TONE: Record<DeploymentState, 'good' | 'bad' | 'busy' | 'neutral'> = {
  queued: 'busy',
  running: 'busy',
  succeeded: 'good',
  failed: 'bad',
  superseded: 'neutral',
  stopped: 'neutral',
};

const WORDS: Record<DeploymentState, string> = {
  queued: 'queued',
  running: 'deploying',
  succeeded: 'succeeded',
  failed: 'failed',
  superseded: 'superseded',
  stopped: 'stopped',
};

export function DeploymentBadge({ state }: { state: DeploymentState }) {
  return <span class={`badge badge-${TONE[state]}`}>{WORDS[state]}</span>;
}
