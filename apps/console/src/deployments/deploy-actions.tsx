import { useState } from 'preact/hooks';
import type { Agent } from '@occ/contracts';
import { useConsole } from '../app/console-context.ts';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorMessage } from '../ui/error-message.tsx';

/**
 * Deploy (admit the Agent's desired state as a new revision and queue it) and Stop (after a
 * confirmation: it takes the running Agent down). `onDeployed`/`onStopped` let the tab follow the
 * new revision and re-read the Agent.
 */
export function DeployActions({ ns, agent, onDeployed, onStopped }: { ns: string; agent: Agent; onDeployed: () => void; onStopped: () => void }) {
  const { api } = useConsole();
  const [busy, setBusy] = useState<'deploy' | 'stop' | null>(null);
  const [error, setError] = useState<{ action: 'deploy' | 'stop'; error: unknown } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState('');

  const deploy = async () => {
    setBusy('deploy');
    setError(null);
    setNotice('');
    try {
      const { data } = await api.call('deployAgent', { params: { ns, id: agent.id } });
      if ('unchanged' in data) {
        // Nothing to change: no revision was admitted and the runtime keeps running.
        setNotice(`Nothing changed: revision ${data.revision.revision} already runs this Agent as it is. (To restart it anyway: occ deploy --restart.)`);
        return;
      }
      const revision = 'revision' in data && typeof data.revision === 'number' ? data.revision : undefined;
      setNotice(revision ? `Revision ${revision} created; following its deployment below.` : 'Deploy started.');
      onDeployed();
    } catch (failure) {
      setError({ action: 'deploy', error: failure });
    } finally {
      setBusy(null);
    }
  };

  const stop = async () => {
    setBusy('stop');
    setError(null);
    setNotice('');
    try {
      await api.call('stopAgent', { params: { ns, id: agent.id } });
      setConfirming(false);
      setNotice('Stop requested: OCC stops the runtime shortly; the Agent then has no active revision.');
      onStopped();
    } catch (failure) {
      setConfirming(false);
      setError({ action: 'stop', error: failure });
    } finally {
      setBusy(null);
    }
  };

  const nothingToStop = agent.desiredState === 'stopped' && agent.activeRevisionId === null;
  return (
    <div>
      <div class="button-row">
        <button type="button" class="button-primary" onClick={deploy} disabled={busy !== null}>
          {busy === 'deploy' ? 'Deploying…' : 'Deploy'}
        </button>
        <button type="button" class="button-danger" onClick={() => setConfirming(true)} disabled={busy !== null || nothingToStop}>
          Stop
        </button>
        {nothingToStop ? <span class="muted small">The Agent is stopped.</span> : null}
      </div>
      <p role="status" class="small">
        {notice}
      </p>
      {error ? <ErrorMessage error={error.error} context={error.action === 'deploy' ? 'The deploy was not started' : 'The Agent was not stopped'} /> : null}
      {/* While the stop request is in flight, Escape and × do nothing: the dialog stays to show its outcome. */}
      <Dialog
        title={`Stop ${agent.name}?`}
        open={confirming}
        onClose={() => {
          if (busy !== 'stop') setConfirming(false);
        }}
      >
        <p>The Agent's runtime is stopped and its active revision cleared; it answers nothing until the next deploy. A deploy in progress ends as stopped.</p>
        <div class="button-row">
          <button type="button" class="button-danger" onClick={stop} disabled={busy !== null}>
            {busy === 'stop' ? 'Stopping…' : 'Stop the Agent'}
          </button>
          <button type="button" onClick={() => setConfirming(false)} disabled={busy !== null}>
            Cancel
          </button>
        </div>
      </Dialog>
    </div>
  );
}
