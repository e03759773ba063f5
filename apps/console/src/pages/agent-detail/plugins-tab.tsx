import type { Approver, DeployDryRun, PluginMap } from '@occ/contracts';
import { ApiError } from '@occ/contracts/client';
import { useEffect, useState } from 'preact/hooks';
import { useConsole } from '../../app/console-context.ts';
import { checkAgainstCapabilities, CapabilityRefusal } from '../../plugins/capability-check.ts';
import { DeployPreview } from '../../plugins/deploy-preview.tsx';
import { PluginSelectionsEditor } from '../../plugins/plugin-selections-editor.tsx';
import { sameApprovers, sameSelections } from '../../plugins/same-selections.ts';
import { ErrorMessage } from '../../ui/error-message.tsx';
import type { AgentTabProps } from './agent-detail-page.tsx';

type Busy = 'idle' | 'saving' | 'previewing';

/**
 * The Agent's plugins and its Agent-wide approvers: the editor over a draft of both, saved together
 * in one update with If-Match after the draft passes the harness's capabilities, and a dry-run
 * preview of what a deploy would write.
 *
 * The preview always shows the SAVED Agent (a dry run reads the Agent as stored). Saving on the
 * user's behalf to preview would turn a look into a write, so with unsaved edits the preview says
 * plainly that it does not include them.
 */
export function PluginsTab({ ns, agent, etag, reloadAgent }: AgentTabProps) {
  const { api } = useConsole();
  const [draft, setDraft] = useState<PluginMap>(agent.plugins);
  const [draftApprovers, setDraftApprovers] = useState<Approver[] | null>(agent.pluginApprovers);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [stale, setStale] = useState(false);
  const [busy, setBusy] = useState<Busy>('idle');
  const [saved, setSaved] = useState(false);
  const [preview, setPreview] = useState<{ answer: DeployDryRun; ofDraft: boolean } | null>(null);
  const [previewError, setPreviewError] = useState<unknown>(null);
  // Aborted when the tab unmounts: the capability read and the dry run stop, and no answer that
  // arrives afterwards touches this (gone) tab's state or reloads the Agent.
  const [life] = useState(() => new AbortController());
  useEffect(() => () => life.abort(), []);

  // A newly read Agent (after a save or a reload) is the new baseline: the draft starts over from it.
  useEffect(() => {
    setDraft(agent.plugins);
    setDraftApprovers(agent.pluginApprovers);
    setSaveError(null);
    setStale(false);
    setPreview(null);
    setPreviewError(null);
  }, [agent]);

  const dirty = !sameSelections(draft, agent.plugins) || !sameApprovers(draftApprovers, agent.pluginApprovers);
  const edit = (next: PluginMap) => {
    setDraft(next);
    setSaved(false);
  };
  const editApprovers = (next: Approver[] | null) => {
    setDraftApprovers(next);
    setSaved(false);
  };

  const save = async () => {
    const { signal } = life;
    setBusy('saving');
    setSaveError(null);
    setSaved(false);
    try {
      const capabilities = await api.call('getAgentPluginCapabilities', { params: { ns, id: agent.id }, signal });
      if (signal.aborted) return;
      const refusals = checkAgainstCapabilities(draft, capabilities.data.pluginPolicies, draftApprovers);
      if (refusals.length > 0) {
        setSaveError(new CapabilityRefusal(refusals));
        return;
      }
      // The write itself is not aborted (once sent, aborting would only hide whether it happened);
      // its answer is ignored after unmount.
      await api.call('updateAgent', { params: { ns, id: agent.id }, body: { plugins: draft, pluginApprovers: draftApprovers }, ifMatch: etag });
      if (signal.aborted) return;
      setSaved(true);
      reloadAgent();
    } catch (failure) {
      if (signal.aborted) return;
      if (failure instanceof ApiError && failure.status === 412) setStale(true);
      else setSaveError(failure);
    } finally {
      if (!signal.aborted) setBusy('idle');
    }
  };

  const runPreview = async () => {
    const { signal } = life;
    setBusy('previewing');
    setPreviewError(null);
    setPreview(null);
    try {
      const { data } = await api.call('deployAgent', { params: { ns, id: agent.id }, body: { dryRun: true }, signal });
      if (signal.aborted) return;
      if ('dryRun' in data) setPreview({ answer: data, ofDraft: !dirty });
      else setPreviewError(new ApiError(0, 'NOT_A_DRY_RUN', 'The server did not answer with a dry run.'));
    } catch (failure) {
      if (!signal.aborted) setPreviewError(failure);
    } finally {
      if (!signal.aborted) setBusy('idle');
    }
  };

  // Pointers of a failed save, or — when the draft is the saved state — of a refused preview, are shown at their controls.
  const refusedPreview =
    preview?.ofDraft && preview.answer.nativeConfiguration.status === 'refused'
      ? new ApiError(0, 'PREVIEW_REFUSED', 'The runtime would refuse these selections.', preview.answer.nativeConfiguration.violations)
      : null;
  const fieldErrors = saveError ?? (!dirty && previewError instanceof ApiError ? previewError : null) ?? refusedPreview;

  return (
    <div class="plugins-tab">
      <h2>Plugins</h2>
      <PluginSelectionsEditor
        credential={{ kind: 'agent', namespaceId: ns, agentId: agent.id }}
        harness={agent.harness}
        selections={draft}
        onChange={edit}
        saveError={fieldErrors}
        agent={{ ns, agentId: agent.id }}
        agentApprovers={draftApprovers}
        onAgentApproversChange={editApprovers}
      />
      {stale ? (
        <div class="error-message" role="alert">
          <p>Not saved: this Agent was changed elsewhere — reload to see its current plugins (your edits here are discarded).</p>
          <button type="button" onClick={reloadAgent}>
            Reload
          </button>
        </div>
      ) : null}
      {saveError ? <ErrorMessage error={saveError} context="The plugins were not saved" /> : null}
      {saved && !dirty ? (
        <p class="notice" role="status">
          Plugins saved. Deploy the Agent to apply them.
        </p>
      ) : null}
      <div class="button-row">
        <button type="button" class="button-primary" onClick={save} disabled={busy !== 'idle' || !dirty || stale}>
          {busy === 'saving' ? 'Saving…' : 'Save plugins'}
        </button>
        <button
          type="button"
          onClick={() => {
            setDraft(agent.plugins);
            setDraftApprovers(agent.pluginApprovers);
            setSaveError(null);
          }}
          disabled={busy !== 'idle' || !dirty}
        >
          Discard changes
        </button>
        <button type="button" onClick={runPreview} disabled={busy !== 'idle'}>
          {busy === 'previewing' ? 'Previewing…' : 'Preview'}
        </button>
        {dirty ? <span class="help">Unsaved changes. Preview shows the saved plugins, not these edits: save first to preview them.</span> : null}
      </div>
      {previewError ? <ErrorMessage error={previewError} context="The preview could not be made" /> : null}
      {preview ? (
        <>
          {!preview.ofDraft || dirty ? <p class="notice">This preview shows the saved plugins; it does not include your unsaved edits.</p> : null}
          <DeployPreview preview={preview.answer} />
        </>
      ) : null}
    </div>
  );
}
