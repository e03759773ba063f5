import { deploymentEventDetail, deploymentEventLabel, isDeploymentOutcome, reasonCodeWords, type DeploymentEventData } from '@occ/contracts';
import { ErrorMessage } from '../ui/error-message.tsx';
import type { DeploymentProgress } from './use-deployment-progress.ts';

/** The code an event carries that has words of its own (a failed start's code, an outcome's reason). */
function codeWords(event: DeploymentEventData): string | undefined {
  if (event.type === 'step' && event.code) return reasonCodeWords(event.code);
  if (isDeploymentOutcome(event)) return reasonCodeWords(event.reasonCode);
  return undefined;
}

function rowClass(event: DeploymentEventData): string {
  if (event.type === 'warning') return 'event event-warning';
  if (event.type === 'failed' || (event.type === 'step' && event.code)) return 'event event-failed';
  return 'event';
}

/** The live announcement: the current activity or the outcome, never each line. */
function liveText(progress: DeploymentProgress): string {
  const last = progress.events.at(-1)?.data;
  if (last && isDeploymentOutcome(last)) return `Deployment ${last.type}: ${deploymentEventDetail(last)}.`;
  if (progress.activity) return `Now: ${progress.activity}.`;
  return 'Waiting for the first event…';
}

function ConnectionLine({ progress }: { progress: DeploymentProgress }) {
  const { connection } = progress;
  switch (connection.kind) {
    case 'connecting':
      return <p class="muted small">Following live.</p>;
    case 'waiting':
      return <p class="muted small">The server ended the stream before the outcome; reconnecting in {Math.ceil(connection.delayMs / 1000)} s (resuming after the last event).</p>;
    case 'ended':
      return connection.end.kind === 'final' ? <p class="muted small">The deploy is final; no more events will come.</p> : null;
    case 'failed':
      return (
        <>
          <ErrorMessage error={connection.error} context="Following the deployment stopped" />
          <div class="button-row">
            <button type="button" onClick={progress.restart}>
              Follow again
            </button>
          </div>
        </>
      );
  }
}

/** A deployment's events as they arrive, in words, with a polite live region for phase changes. */
export function DeploymentEventLog({ progress, revision }: { progress: DeploymentProgress; revision: number }) {
  return (
    <section aria-label={`Progress of revision ${revision}`}>
      <h3>Progress</h3>
      <p class="live-status" aria-live="polite" aria-atomic="true">
        {liveText(progress)}
      </p>
      <ConnectionLine progress={progress} />
      {progress.events.length === 0 ? (
        <p class="muted">No events yet.</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable, run by apps/console/test/browser/console-flow.test.ts)
        <ol class="event-list" tabIndex={0} aria-label={`Deployment events of revision ${revision}`}>
          {progress.events.map(({ key, data }) => {
            const words = codeWords(data);
            return (
              <li key={key} class={rowClass(data)}>
                <span class="event-label">{deploymentEventLabel(data)}</span>
                <span>
                  {deploymentEventDetail(data)}
                  {words ? <span class="muted"> — {words}</span> : null}
                </span>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
