import { humanPointer, type DeployDryRun, type NativeConfigurationPreview } from '@occ/contracts';
import { detailWords } from '../ui/api-errors.ts';

const UNAVAILABLE_WORDS: Record<Extract<NativeConfigurationPreview, { status: 'unavailable' }>['reason'], string> = {
  RESOLVED_AT_STARTUP: 'Codex reads its plugin and app tables from the marketplace when the runtime starts, so the native configuration is only known then.',
  NO_PLUGIN_DRIVER: 'This harness has no plugin driver on this installation: a deploy writes no plugin configuration.',
  NOT_TRANSLATABLE: "This harness's plugin driver has no static translation the controller could preview.",
};

/**
 * A dry-run deploy's answer: the native configuration the runtime would write (read-only JSON
 * text — never markup), and everything that would not go as the selections say, in words.
 */
export function DeployPreview({ preview }: { preview: DeployDryRun }) {
  const native = preview.nativeConfiguration;
  const pluginCount = Object.keys(preview.revision.plugins).length;
  return (
    <section class="deploy-preview" aria-label="Deploy preview">
      <h3>What a deploy would write</h3>
      <p class="small muted">
        Dry run of the saved Agent: {pluginCount === 1 ? '1 plugin' : `${pluginCount} plugins`}, plugin driver {preview.revision.pluginDriverId ?? 'none'}, Configuration generation{' '}
        {preview.revision.configuration.generation}. Nothing was written.
      </p>
      {native.status === 'translated' ? (
        <>
          {native.unselectedDisabled.length > 0 ? (
            <div class="warning">
              <p>Warning: these plugins are not selected, so the deploy turns them off:</p>
              <ul>
                {native.unselectedDisabled.map((id) => (
                  <li key={id}>
                    <code>{id}</code>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable, run by apps/console/test/browser/console-flow.test.ts) */}
          {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a focusable scrollable region needs a name (axe scrollable-region-focusable) */}
          <pre tabIndex={0} aria-label="Native OpenClaw configuration (plugins and tools sections), read-only">
            {JSON.stringify({ plugins: native.plugins, tools: native.tools }, null, 2)}
          </pre>
        </>
      ) : null}
      {native.status === 'refused' ? (
        <div class="warning" role="alert">
          <p>Warning: the runtime would refuse these selections at startup, so the deploy would fail:</p>
          <ul>
            {native.violations.map((violation) => (
              <li key={`${violation.path}:${violation.code}`}>
                <code>{humanPointer(violation.path)}</code> — {detailWords(violation.code)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {native.status === 'unavailable' ? <p class="notice">No preview of the native configuration: {UNAVAILABLE_WORDS[native.reason]}</p> : null}
    </section>
  );
}
