import type { Configuration } from '@occ/contracts';
import { useConsole } from '../../app/console-context.ts';
import { routeHref } from '../../app/routes.ts';
import { ErrorMessage } from '../../ui/error-message.tsx';
import { Field, fieldAria } from '../../ui/field.tsx';
import { useLoad } from '../../ui/use-load.ts';

/** The Agent's Configuration, chosen from the Namespace's; a way to create one when there is none. */
export function ConfigurationSelect({ ns, value, onChange, errors }: { ns: string; value: string; onChange: (id: string) => void; errors: readonly string[] }) {
  const { api } = useConsole();
  const list = useLoad((signal) => api.listAll('listConfigurations', { params: { ns }, signal }), [api, ns]);
  const id = 'agent-configuration';
  const configurations: readonly Configuration[] = list.data ?? [];

  if (list.status === 'error') return <ErrorMessage error={list.error} context="Configurations could not be loaded" />;
  if (!list.data) return <p aria-busy="true">Loading Configurations…</p>;
  if (configurations.length === 0) {
    return (
      // biome-ignore lint/a11y/useSemanticElements: same semantics as a <fieldset> without the browser's fieldset border, padding and min-width
      <div class="notice" role="group" aria-label="Configuration">
        <p>
          <strong>Configuration:</strong> this Namespace has none yet, and every Agent needs one. <a href={routeHref({ page: 'configuration-new', ns })}>Create a Configuration</a>,
          then come back to create the Agent.
        </p>
      </div>
    );
  }
  return (
    <Field id={id} label="Configuration" errors={errors}>
      <select {...fieldAria(id, { errors })} required value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">Choose a Configuration</option>
        {configurations.map((configuration) => (
          <option key={configuration.id} value={configuration.id}>
            {configuration.name}
          </option>
        ))}
      </select>
    </Field>
  );
}
