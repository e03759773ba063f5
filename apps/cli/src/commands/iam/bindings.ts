import { Option, type Command } from 'commander';
import type { AccessBinding } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { action, type CommandContext } from '../../command-context.ts';
import { CliError, EXIT } from '../../exit-codes.ts';
import { readResourceFile } from '../../input/read-input.ts';
import { isTableFormat, type OutputFormat } from '../../output/output-format.ts';
import { age, note, printList, printOne, type View } from '../../output/render.ts';
import { example } from '../../program.ts';
import { bindingScope, type ScopeFlags } from './binding-scope.ts';
import { idsForNames, loadNameBook, principalId, roleId, type NameBook } from './references.ts';

/** `*` = every Namespace, or every resource of the Namespace. */
export function bindingView(names: NameBook): View<AccessBinding> {
  return {
    kind: 'accessbinding',
    id: (b) => b.id,
    // A binding a sign-in rule granted follows the person's groups (occ sign-in-rules).
    wide: [
      ['created', (b) => b.createdAt],
      ['sign-in rule', (b) => b.signInRuleId],
    ],
    columns: [
      ['id', (b) => b.id],
      ['principal', (b) => names.principal(b.principalId)],
      ['role', (b) => names.role(b.roleId)],
      ['namespace', (b) => names.namespace(b.namespaceId) ?? '*'],
      ['resource', (b) => (b.resource ? `${b.resource.kind}/${b.resource.kind === 'namespace' ? names.namespace(b.resource.id) : b.resource.id}` : '*')],
      ['age', (b) => age(b.createdAt)],
    ],
  };
}

/** Names only matter for a table; json, yaml and --quiet need none, so no extra requests then. */
async function viewFor(client: ApiClient, options: { output: OutputFormat; quiet?: boolean }): Promise<View<AccessBinding>> {
  const needed = isTableFormat(options.output) && !options.quiet;
  return bindingView(await loadNameBook(client, { principals: needed, roles: needed, namespaces: needed }));
}

interface CreateFlags extends ScopeFlags {
  principal?: string;
  role?: string;
  file?: string;
}

async function createBody(context: CommandContext, flags: CreateFlags): Promise<Record<string, unknown>> {
  const client = context.connection.client;
  if (flags.file) {
    if (flags.principal || flags.role || flags.installation || flags.resource) throw new CliError('Give the binding either as -f FILE or as flags, not both', EXIT.USAGE);
    return idsForNames(client, await readResourceFile(flags.file), ['principal', 'role', 'namespace']);
  }
  if (!flags.principal || !flags.role) throw new CliError('Give --principal and --role (and the scope), or -f FILE', EXIT.USAGE);
  const scope = await bindingScope(context, flags);
  return { principalId: await principalId(client, flags.principal), roleId: await roleId(client, flags.role), ...scope };
}

export function registerBindingCommands(program: Command): void {
  const group = program.command('bindings').description('Access bindings: a role granted to a principal on the Installation, a Namespace or one resource.');
  example(group.command('list').description('List the bindings (NAMESPACE and RESOURCE * = all).'), 'occ bindings list').action(
    action(async ({ connection, options }) => {
      const items = await connection.client.listAll('listAccessBindings', {});
      printList({ items, nextCursor: null }, await viewFor(connection.client, options), options);
    }),
  );
  example(group.command('get').argument('<binding>', 'binding id (bind_…)').description('Show one binding.'), 'occ bindings get bind_…').action(
    action(async ({ connection, options }, [id]) => {
      const binding = (await connection.client.call('getAccessBinding', { params: { id: id! } })).data;
      printOne(binding, await viewFor(connection.client, options), options);
    }),
  );
  example(
    group
      .command('create')
      .addOption(new Option('--principal <principal>', 'who: a principal name or id'))
      .addOption(new Option('--role <role>', 'what: a role name or id'))
      .addOption(new Option('--installation', 'scope: the whole Installation'))
      .addOption(new Option('--resource <kind/name>', 'scope: one resource, e.g. agent/support-bot (in -n) or namespace/team-a'))
      .addOption(new Option('-f, --file <path>', "the binding as JSON or YAML (principal, role, namespace by name or the API's ids)"))
      .description('Grant a role to a principal. Scope: --installation, -n NAMESPACE, or --resource KIND/NAME.'),
    'occ bindings create --principal ci-deployer --role deployer -n team-a',
    'occ bindings create --principal alice --role operator --resource agent/support-bot -n team-a',
  ).action(
    action<CreateFlags>(async (context, _args, flags) => {
      const body = await createBody(context, flags);
      const binding = (await context.connection.client.call('createAccessBinding', { body: body as never })).data;
      printOne(binding, await viewFor(context.connection.client, context.options), context.options);
    }),
  );
  example(group.command('delete').argument('<binding>', 'binding id (bind_…)').description('Remove a binding: the grant ends at once.'), 'occ bindings delete bind_…').action(
    action(async ({ connection, options }, [id]) => {
      await connection.client.call('deleteAccessBinding', { params: { id: id! } });
      note(`Binding ${id} deleted.`, options);
    }),
  );
}
