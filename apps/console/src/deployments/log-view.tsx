import { useEffect, useRef } from 'preact/hooks';

/**
 * Log lines as plain text (never markup) in a scrollable, keyboard-focusable box. While new lines
 * arrive it stays at the bottom, unless the reader scrolled up to read something.
 */
export function LogView({ lines, label }: { lines: readonly string[]; label: string }) {
  const ref = useRef<HTMLPreElement>(null);
  const atBottom = useRef(true);
  useEffect(() => {
    const view = ref.current;
    if (view && atBottom.current) view.scrollTop = view.scrollHeight;
  }, [lines]);
  return (
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: a focusable scrollable region needs a name (axe scrollable-region-focusable)
    <pre
      ref={ref}
      class="log-view"
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable, run by apps/console/test/browser/console-flow.test.ts)
      tabIndex={0}
      onScroll={(event) => {
        const view = event.currentTarget;
        atBottom.current = view.scrollHeight - view.scrollTop - view.clientHeight < 24;
      }}
    >
      {lines.join('\n')}
    </pre>
  );
}
