import type { Secret } from '@occ/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { ConfirmDialog } from '../resources/confirm-dialog.tsx';
import { SecretCreateForm } from '../resources/secret-create-form.tsx';
import { SecretReplaceDialog } from '../resources/secret-replace-dialog.tsx';
import { ErrorMessage } from '../ui/error-message.tsx';
import { formatTime } from '../ui/format-time.ts';
import { useLoad } from '../ui/use-load.ts';

/** The Namespace's Secrets: metadata only (the API never answers a value), create, replace, delete. */
export function SecretsPage({ ns }: { ns: string }) {
  const { api } = useConsole();
  const list = useLoad((signal) => api.listAll('listSecrets', { params: { ns }, signal }), [api, ns]);
  const [done, setDone] = useState('');
  const [replacing, setReplacing] = useState<Secret | null>(null);
  const [deleting, setDeleting] = useState<Secret | null>(null);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const rows = useRef<HTMLTableSectionElement>(null);
  // After a delete the focused row disappears with the reloaded list: focus then goes to the row
  // now in its place (its Delete button), or the Secrets heading when none is left — never <body>.
  const deletedRow = useRef<{ id: string; index: number } | null>(null);
  useEffect(() => {
    const deleted = deletedRow.current;
    if (!deleted || !list.data || list.data.some((secret) => secret.id === deleted.id)) return;
    deletedRow.current = null;
    const buttons = [...(rows.current?.querySelectorAll<HTMLTableRowElement>('tr') ?? [])].map((row) => row.querySelector<HTMLButtonElement>('button.button-danger'));
    const next = buttons[Math.min(deleted.index, buttons.length - 1)];
    if (next) next.focus();
    else heading.current?.focus();
  }, [list.data]);

  const finished = (message: string) => {
    setDone(message);
    list.reload();
  };
  const remove = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    setDeleteError(null);
    try {
      await api.call('deleteSecret', { params: { ns, id: deleting.id } });
      deletedRow.current = { id: deleting.id, index: Math.max(0, list.data?.findIndex((secret) => secret.id === deleting.id) ?? 0) };
      finished(`Secret ${deleting.name} deleted.`);
      setDeleting(null);
    } catch (failure) {
      setDeleteError(failure);
    } finally {
      setDeleteBusy(false);
    }
  };

  return (
    <section>
      <h1 tabIndex={-1} ref={heading}>
        Secrets
      </h1>
      <p class="muted">Values are write-only: the console and the API show names and versions, never a value.</p>
      <p role="status" class={done ? 'notice' : 'visually-hidden'}>
        {done}
      </p>
      {list.status === 'error' ? <ErrorMessage error={list.error} context="Secrets could not be loaded" /> : null}
      {list.data && list.data.length === 0 ? <p>No Secret yet: create the first one below.</p> : null}
      {list.data && list.data.length > 0 ? (
        <div class="table-wrap">
          <table class="data-table">
            <caption class="visually-hidden">Secrets</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Version</th>
                <th scope="col">Updated</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody ref={rows}>
              {list.data.map((secret) => (
                <tr key={secret.id}>
                  <th scope="row">{secret.name}</th>
                  <td>{secret.version}</td>
                  <td>{formatTime(secret.updatedAt)}</td>
                  <td>
                    <div class="button-row button-row-tight">
                      <button type="button" aria-label={`Replace value of ${secret.name}`} onClick={() => setReplacing(secret)}>
                        Replace value
                      </button>
                      <button
                        type="button"
                        class="button-danger"
                        aria-label={`Delete ${secret.name}`}
                        onClick={() => {
                          setDeleteError(null);
                          setDeleting(secret);
                        }}
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {list.status === 'loading' && !list.data ? <p aria-busy="true">Loading Secrets…</p> : null}
      <SecretCreateForm ns={ns} onCreated={(name) => finished(`Secret ${name} created.`)} />
      <SecretReplaceDialog
        ns={ns}
        secret={replacing}
        onClose={() => setReplacing(null)}
        onReplaced={(secret) => {
          setReplacing(null);
          finished(`Secret ${secret.name} now has version ${secret.version}.`);
        }}
      />
      <ConfirmDialog
        title="Delete the Secret"
        open={deleting !== null}
        confirmLabel={`Delete ${deleting?.name ?? ''}`}
        busyLabel="Deleting…"
        busy={deleteBusy}
        error={deleteError}
        errorContext="The Secret was not deleted"
        danger
        onConfirm={remove}
        onClose={() => {
          if (!deleteBusy) setDeleting(null);
        }}
      >
        <p>
          Delete <strong>{deleting?.name}</strong> and its value? A Secret that a Configuration or an Agent still uses cannot be deleted.
        </p>
      </ConfirmDialog>
    </section>
  );
}
