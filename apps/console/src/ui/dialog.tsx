import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal dialog on the native <dialog> element: the browser traps focus, makes the page behind
 * inert, and closes it on Escape (reported through onClose, so the owner's state stays the truth).
 *
 * One Escape closes it wherever focus is. The dialog's own Escape (its `cancel`) is the browser's
 * default action of the keydown, and a focused control may use that keydown first: a search box
 * with text clears it, so the picker took two Escapes. The dialog therefore takes an Escape that
 * no control handled in script itself (an IME composing text keeps its Escape).
 */
export function Dialog({ title, open, onClose, children, wide = false }: { title: string; open: boolean; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  const titleId = `dialog-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <dialog
      ref={ref}
      class={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby={titleId}
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || event.defaultPrevented || event.isComposing) return;
        event.preventDefault();
        onClose();
      }}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <header class="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="button-quiet" onClick={onClose} aria-label={`Close ${title}`}>
          ×
        </button>
      </header>
      {open ? children : null}
    </dialog>
  );
}
