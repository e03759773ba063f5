import { Option, type Command } from 'commander';
import type { SignInRule } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { action, type CommandContext } from '../../command-context.ts';
import { CliError, EXIT } from '../../exit-codes.ts';
import { readResourceFile } from '../../input/read-input.ts';
import { isTableFormat, type OutputFormat } from '../../output/output-format.ts';
import { age, note, printList, printOne, type View } from '../../output/render.ts';
import { example } from '../../program.ts';
import { bindingScope, type ScopeFlags } from './binding-scope.ts';
import { idsForNames, loadNameBook, roleId, type NameBook } from './references.ts';

/** As a binding's table, with the claim value where the principal would be; `*` = every Namespace or resource. */
function ruleView(names: NameBook): View<SignInRule> {
  return {
    kind: 'signinrule',
    id: (r) => r.id,
    wide: [['created', (r) => r.createdAt]],
    columns: [
      ['id', (r) => r.id],
      ['claim', (r) => r.claim],
      ['value', (r) => r.value],
      ['role', (r) => names.role(r.roleId)],
      ['namespace', (r) => names.namespace(r.namespaceId) ?? '*'],
      ['resource', (r) => (r.resource ? `${r.resource.kind}/${r.resource.kind === 'namespace' ? names.namespace(r.resource.id) : r.resource.id}` : '*')],
      ['age', (r) => age(r.createdAt)],
    ],
  };
}

/** Names only matter for a table; json, yaml and --quiet need none, so no extra requests then. */
async function viewFor(client: ApiClient, options: { output: OutputFormat; quiet?: boolean }): Promise<View<SignInRule>> {
  const needed = isTableFormat(options.output) && !options.quiet;
  return ruleView(await loadNameBook(client, { roles: needed, namespaces: needed }));
}

interface CreateFlags extends ScopeFlags {
  value?: string;
  claim?: string;
  role?: string;
  file?: string;
}

/** The body from -f FILE (role and namespace by name or id), or from the flags with the scope chosen as a binding's is. */
async function createBody(context: CommandContext, flags: CreateFlags): Promise<Record<string, unknown>> {
  const client = context.connection.client;
  if (flags.file) {
    if (flags.value || flags.claim || flags.role || flags.installation || flags.resource) throw new CliError('Give the rule either as -f FILE or as flags, not both', EXIT.USAGE);
    return idsForNames(client, await readResourceFile(flags.file), ['role', 'namespace']);
  }
  if (!flags.value || !flags.role) throw new CliError('Give --value and --role (and the scope), or -f FILE', EXIT.USAGE);
  const scope = await bindingScope(context, flags);
  return { value: flags.value, ...(flags.claim ? { claim: flags.claim } : {}), roleId: await roleId(client, flags.role), ...scope };
}

/** Sign-in rules (docs/sign-in.md): who single sign-on admits, and the role each group brings (`occ sign-in-rules`). */
export function registerSignInRuleCommands(iam: Command): void {
  const group = iam
    .command('sign-in-rules')
    .description("Sign-in rules: a person whose ID token's claim (groups by default) holds a value is granted a role, as a binding would, on each single sign-on.");
  example(group.command('list').description('List the sign-in rules (NAMESPACE and RESOURCE * = all).'), 'occ sign-in-rules list').action(
    action(async ({ connection, options }) => {
      const items = await connection.client.listAll('listSignInRules', {});
      printList({ items, nextCursor: null }, await viewFor(connection.client, options), options);
    }),
  );
  example(group.command('get').argument('<rule>', 'rule id (sir_…)').description('Show one sign-in rule.'), 'occ sign-in-rules get sir_…').action(
    action(async ({ connection, options }, [id]) => {
      const rule = (await connection.client.call('getSignInRule', { params: { id: id! } })).data;
      printOne(rule, await viewFor(connection.client, options), options);
    }),
  );
  example(
    group
      .command('create')
      .addOption(new Option('--value <value>', 'the claim value that admits, e.g. a group name'))
      .addOption(new Option('--role <role>', 'what it grants: a role name or id'))
      .addOption(new Option('--claim <claim>', "the ID token claim to match (default: the provider's groups claim)"))
      .addOption(new Option('--installation', 'scope: the whole Installation'))
      .addOption(new Option('--resource <kind/name>', 'scope: one resource, e.g. agent/support-bot (in -n) or namespace/team-a'))
      .addOption(new Option('-f, --file <path>', "the rule as JSON or YAML (value, claim, role and namespace by name or the API's ids, resource)"))
      .description('Admit a group: its members are granted the role on each sign-in. Scope: --installation, -n NAMESPACE, or --resource KIND/NAME.'),
    'occ sign-in-rules create --value team-a --role viewer -n team-a',
    'occ sign-in-rules create --claim roles --value occ-admins --role admin --installation',
  ).action(
    action<CreateFlags>(async (context, _args, flags) => {
      const body = await createBody(context, flags);
      const rule = (await context.connection.client.call('createSignInRule', { body: body as never })).data;
      printOne(rule, await viewFor(context.connection.client, context.options), context.options);
    }),
  );
  example(
    group
      .command('delete')
      .argument('<rule>', 'rule id (sir_…)')
      .description('Delete a sign-in rule: the bindings it granted end at once (a session it alone admitted ends at its next refresh).'),
    'occ sign-in-rules delete sir_…',
  ).action(
    action(async ({ connection, options }, [id]) => {
      await connection.client.call('deleteSignInRule', { params: { id: id! } });
      note(`Sign-in rule ${id} deleted.`, options);
    }),
  );
}
