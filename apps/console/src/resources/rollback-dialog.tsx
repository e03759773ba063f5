import { useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';

/**
 * The confirm step of a rollback: deployAgent with `fromRevision` admits that revision's snapshot
 * as a NEW revision (history only grows) and starts deploying it; the deployments tab follows it.
 */
export function RollbackDialog({ ns, agentId, number, onClose, onDeployed }: { ns: string; agentId: string; number: number | null; onClose: () => void; onDeployed: () => void }) {
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
      await api.call('deployAgent', { params: { ns, id: agentId }, body: { fromRevision: number } });
      setBusy(false);
      onDeployed();
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
        Revision {number}'s snapshot is admitted again as a new revision and deployed now. The Agent's own settings stay as they are: a later
        ordinary deploy uses them again.
      </p>
    </ConfirmDialog>
  );
}
