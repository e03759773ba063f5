import type { ComponentChildren } from 'preact';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorMessage } from '../ui/error-message.tsx';

/**
 * A confirm step for something that cannot be taken back (delete, roll back): the question, the
 * answer's failure if any, and two native buttons — Escape and Cancel both say no.
 */
export function ConfirmDialog(props: {
  title: string;
  open: boolean;
  confirmLabel: string;
  busyLabel: string;
  busy: boolean;
  error: unknown;
  errorContext: string;
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
  children: ComponentChildren;
}) {
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      {props.children}
      {props.error ? <ErrorMessage error={props.error} context={props.errorContext} /> : null}
      <div class="button-row">
        <button type="button" class={props.danger ? 'button-danger' : 'button-primary'} disabled={props.busy} onClick={props.onConfirm}>
          {props.busy ? props.busyLabel : props.confirmLabel}
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
