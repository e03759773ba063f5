import { RESOURCE_KINDS, type ResourceKind } from '@occ/contracts';
import type { CommandContext } from '../../command-context.ts';
import { agentId, configurationId, namespaceId, secretId } from '../../context/resolve.ts';
import { CliError, EXIT } from '../../exit-codes.ts';

export interface ScopeFlags {
  installation?: boolean;
  resource?: string;
}

export interface BindingScope {
  namespaceId?: string;
  resource?: { kind: ResourceKind; id: string };
}

const namespaced = { secret: secretId, configuration: configurationId, agent: agentId } as const;

/**
 * Where a binding applies, chosen explicitly — never from the context's default Namespace, so a
 * forgotten flag cannot widen or move a grant: `--installation`, `-n NAMESPACE`, or
 * `--resource KIND/NAME` (a Namespace's own resources by name, in `-n` or the context default).
 */
export async function bindingScope(context: CommandContext, flags: ScopeFlags): Promise<BindingScope> {
  const explicitNamespace = context.options.namespace;
  const chosen = [flags.installation, explicitNamespace !== undefined || flags.resource !== undefined].filter(Boolean).length;
  if (chosen !== 1) throw new CliError('Choose the scope: --installation, -n NAMESPACE, or --resource KIND/NAME (with -n for a resource in a Namespace)', EXIT.USAGE);
  if (flags.installation) return {};
  const client = context.connection.client;
  if (flags.resource === undefined) return { namespaceId: await namespaceId(client, explicitNamespace) };
  const slash = flags.resource.indexOf('/');
  const kind = flags.resource.slice(0, slash) as ResourceKind;
  const ref = flags.resource.slice(slash + 1);
  if (slash < 1 || !ref || !RESOURCE_KINDS.includes(kind) || kind === 'installation') {
    throw new CliError(
      `--resource is KIND/NAME with KIND one of ${RESOURCE_KINDS.filter((k) => k !== 'installation').join(', ')} (got ${JSON.stringify(flags.resource)})`,
      EXIT.USAGE,
    );
  }
  if (kind === 'namespace') return { resource: { kind, id: await namespaceId(client, ref) } };
  const ns = await context.namespace();
  // A revision has no name: it is given by id.
  const id = kind === 'agent_revision' ? ref : await namespaced[kind](client, ns, ref);
  return { namespaceId: ns, resource: { kind, id } };
}
