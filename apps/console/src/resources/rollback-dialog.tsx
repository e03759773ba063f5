import { useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';

/**
 * The confirm step of a rollback: deployAgent with `fromRevision` makes that revision's snapshot
 * the Agent's desired state and admits it as a NEW revision (history only grows), which the
 * deployments tab follows; when that revision already runs, nothing is admitted (`onUnchanged`).
 */
export function RollbackDialog({
  ns,
  agentId,
  number,
  onClose,
  onDeployed,
  onUnchanged,
}: {
  ns: string;
  agentId: string;
  number: number | null;
  onClose: () => void;
  onDeployed: () => void;
  onUnchanged: (active: number) => void;
}) {
  const { api } = useConsole();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const close = () => {
    if (busy) return;
    setError(null);
    onClose();
  };
  const confirm = async () => {
    if (number === null) return;
    setBusy(true);
    setError(null);
    try {
      const { data } = await api.call('deployAgent', { params: { ns, id: agentId }, body: { fromRevision: number } });
      setBusy(false);
      if ('unchanged' in data) onUnchanged(data.revision.revision);
      else onDeployed();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <ConfirmDialog
      title="Roll back"
      open={number !== null}
      confirmLabel={`Roll back to revision ${number ?? ''}`}
      busyLabel="Rolling back…"
      busy={busy}
      error={error}
      errorContext="The rollback was not started"
      onConfirm={confirm}
      onClose={close}
    >
      <p>
        The Agent's plugins, approvers and Configuration become revision {number}'s again, deployed now as a new revision; a later ordinary deploy keeps them. The Configuration's
        own values are shared with other Agents and are not rolled back.
      </p>
    </ConfirmDialog>
  );
}
