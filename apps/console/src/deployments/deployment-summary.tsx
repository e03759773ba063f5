import { pluginWarningText, reasonCodeWords, type AgentRevisionView, type DeploymentStatus } from '@occ/contracts';
import { DeploymentBadge } from '../ui/deployment-badge.tsx';
import { formatTime } from '../ui/format-time.ts';

/** A reason code with its meaning: "GATEWAY_STARTING — the gateway runs but does not serve yet". */
export function ReasonCode({ code }: { code: string | null | undefined }) {
  if (!code) return <>none</>;
  const words = reasonCodeWords(code);
  return (
    <>
      {words ?? 'a code this console has no words for'} <code>{code}</code>
    </>
  );
}

const IN_PROGRESS = new Set<DeploymentStatus['state']>(['queued', 'running']);

export function isInProgress(status: DeploymentStatus): boolean {
  return IN_PROGRESS.has(status.state);
}

/**
 * The recorded result of one revision's deploy, as facts: state, what it is doing (the live
 * activity while it runs), why, the error and the warnings in words, and when.
 */
export function DeploymentSummary({ status, revision, activity }: { status: DeploymentStatus; revision: AgentRevisionView; activity: string | undefined }) {
  return (
    <section aria-label={`Deployment of revision ${status.revision}`}>
      <h3>
        Revision {status.revision} <DeploymentBadge state={status.state} />
      </h3>
      <dl class="facts">
        <dt>State</dt>
        <dd>{status.state}</dd>
        <dt>Phase</dt>
        <dd>{isInProgress(status) ? (activity ?? 'waiting for the first event') : `finished (${status.state})`}</dd>
        <dt>Reason</dt>
        <dd>
          <ReasonCode code={status.reasonCode} />
        </dd>
        <dt>Active</dt>
        <dd>{status.active ? 'yes: this is the revision the Agent runs' : 'no'}</dd>
        <dt>Attempts</dt>
        <dd>{status.attempts}</dd>
        <dt>Created</dt>
        <dd>
          <time dateTime={revision.createdAt}>{formatTime(revision.createdAt)}</time>
        </dd>
        <dt>Last attempt</dt>
        <dd>
          {status.lastAttempt ? (
            <>
              <time dateTime={status.lastAttempt.at}>{formatTime(status.lastAttempt.at)}</time>
              {status.lastAttempt.code ? (
                <>
                  {' '}
                  — <ReasonCode code={status.lastAttempt.code} />
                </>
              ) : null}
            </>
          ) : (
            'none yet'
          )}
        </dd>
        {status.nextAttemptAt ? (
          <>
            <dt>Next attempt</dt>
            <dd>
              <time dateTime={status.nextAttemptAt}>{formatTime(status.nextAttemptAt)}</time>
            </dd>
          </>
        ) : null}
      </dl>
      {status.error ? (
        <div class="deployment-error">
          <p>
            <strong>Error:</strong> {status.error.message}
          </p>
          <p class="small">
            <ReasonCode code={status.error.code} />
          </p>
        </div>
      ) : null}
      {status.warnings.length > 0 ? (
        <div class="warning">
          <p>
            <strong>{status.state === 'succeeded' ? 'The deploy succeeded with these caveats:' : 'Warnings of this deploy:'}</strong>
          </p>
          <ul>
            {status.warnings.map((warning) => (
              <li key={`${warning.pluginId}:${warning.code}`}>{pluginWarningText(warning.pluginId, warning.code)}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
