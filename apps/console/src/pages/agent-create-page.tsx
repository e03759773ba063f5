import type { Approver, CreateAgentBody, Harness, PluginMap, Secret } from '@occ/contracts';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import { routeHref } from '../app/routes.ts';
import type { DiscoveryCredential } from '../picker/discovery-api.ts';
import { PluginSelectionsEditor } from '../plugins/plugin-selections-editor.tsx';
import { errorsAt } from '../ui/api-errors.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { Field, fieldAria } from '../ui/field.tsx';
import { CodexSecretPicker } from './agents/codex-secret-picker.tsx';
import { ConfigurationSelect } from './agents/configuration-select.tsx';
import { HarnessChoice } from './agents/harness-choice.tsx';

const FORM_ID = 'create-agent-form';

/** Create an Agent: name, harness, Configuration, the codex_pat Secret, its plugins and Agent-wide approvers. */
export function AgentCreatePage({ ns }: { ns: string }) {
  const { api, navigate } = useConsole();
  const [name, setName] = useState('');
  const [harness, setHarness] = useState<Harness>('openclaw');
  const [configurationId, setConfigurationId] = useState('');
  const [secret, setSecret] = useState<Secret | null>(null);
  const [selections, setSelections] = useState<PluginMap>({});
  // Agent-wide approvers: null = none configured (the field is left out of the create body).
  const [agentApprovers, setAgentApprovers] = useState<Approver[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // A create that answers after the person left must not pull them back to the new Agent.
  const present = useRef(true);
  useEffect(() => () => void (present.current = false), []);

  // Whose catalog the picker browses. OpenClaw's curated catalog needs no credential; Codex's
  // needs its codex_pat Secret, so without one there is nothing to browse yet (null) rather than
  // a request bound to fail. A new object only when the credential really changes: the editor
  // clears discovery (and keeps selections) on every credential change.
  const secretId = harness === 'codex' ? (secret?.id ?? null) : null;
  const secretNamespaceId = secret?.namespaceId ?? null;
  const credential = useMemo<DiscoveryCredential | null>(() => {
    if (harness === 'openclaw') return { kind: 'create', namespaceId: ns, harness, secretRef: null };
    if (secretId === null || secretNamespaceId === null) return null;
    return { kind: 'create', namespaceId: ns, harness, secretRef: { kind: 'secret', namespaceId: secretNamespaceId, id: secretId } };
  }, [ns, harness, secretId, secretNamespaceId]);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body: CreateAgentBody = {
      name,
      configurationId,
      harness,
      ...(harness === 'codex' && secret ? { harnessAuth: { method: 'codex_pat', secretId: secret.id } } : {}),
      plugins: selections,
      ...(agentApprovers !== null ? { pluginApprovers: agentApprovers } : {}),
    };
    try {
      const { data } = await api.call('createAgent', { params: { ns }, body });
      if (present.current) navigate({ page: 'agent', ns, agentId: data.id, tab: 'plugins' });
    } catch (failure) {
      if (present.current) setError(failure);
    } finally {
      if (present.current) setBusy(false);
    }
  };

  const nameErrors = errorsAt(error, '/name');
  const configurationErrors = errorsAt(error, '/configurationId');
  const harnessErrors = errorsAt(error, '/harness');
  const secretErrors = errorsAt(error, '/harnessAuth');
  return (
    <section aria-labelledby="create-agent-heading">
      <p class="small">
        <a href={routeHref({ page: 'agents', ns })}>← Agents</a>
      </p>
      <h1 id="create-agent-heading">Create Agent</h1>
      {/* The plugin editor (with its picker dialog) stays outside this form, so none of its
          controls can submit it; the submit button joins the form through its form attribute. */}
      <form id={FORM_ID} onSubmit={create} aria-label="Create an Agent">
        <Field id="agent-name" label="Name" errors={nameErrors}>
          <input
            {...fieldAria('agent-name', { errors: nameErrors })}
            required
            maxLength={200}
            autoComplete="off"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </Field>
        <HarnessChoice value={harness} onChange={setHarness} errors={harnessErrors} />
        <ConfigurationSelect ns={ns} value={configurationId} onChange={setConfigurationId} errors={configurationErrors} />
        {harness === 'codex' ? <CodexSecretPicker ns={ns} selected={secret} onChange={setSecret} errors={secretErrors} /> : null}
      </form>
      <section class="create-agent-plugins" aria-labelledby="create-agent-plugins-heading">
        <h2 id="create-agent-plugins-heading">Plugins</h2>
        <PluginSelectionsEditor
          credential={credential}
          harness={harness}
          selections={selections}
          onChange={setSelections}
          saveError={error}
          agent={null}
          agentApprovers={agentApprovers}
          onAgentApproversChange={setAgentApprovers}
        />
      </section>
      {error ? <ErrorMessage error={error} context="The Agent was not created" /> : null}
      <div class="button-row">
        <button type="submit" form={FORM_ID} class="button-primary" disabled={busy || name.trim() === '' || configurationId === ''}>
          {busy ? 'Creating…' : 'Create Agent'}
        </button>
        <a href={routeHref({ page: 'agents', ns })}>Cancel</a>
      </div>
    </section>
  );
}
