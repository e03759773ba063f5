import { Option, type Command } from 'commander';
import type { Restriction } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { action } from '../../command-context.ts';
import { readResourceFile } from '../../input/read-input.ts';
import { isTableFormat, type OutputFormat } from '../../output/output-format.ts';
import { age, note, printList, printOne, type View } from '../../output/render.ts';
import { example } from '../../program.ts';
import { idsForNames, loadNameBook, type NameBook } from './references.ts';

/** A restriction left open matches everyone (`*` principal) and everywhere (`*` Namespace or resource). */
function restrictionView(names: NameBook): View<Restriction> {
  return {
    kind: 'restriction',
    id: (r) => r.id,
    wide: [['created', (r) => r.createdAt]],
    columns: [
      ['id', (r) => r.id],
      ['principal', (r) => names.principal(r.principalId) ?? '*'],
      ['action', (r) => r.action],
      ['kind', (r) => r.resourceKind],
      ['namespace', (r) => names.namespace(r.namespaceId) ?? '*'],
      ['resource', (r) => r.resourceId ?? '*'],
      ['age', (r) => age(r.createdAt)],
    ],
  };
}

async function viewFor(client: ApiClient, options: { output: OutputFormat; quiet?: boolean }): Promise<View<Restriction>> {
  const needed = isTableFormat(options.output) && !options.quiet;
  return restrictionView(await loadNameBook(client, { principals: needed, namespaces: needed }));
}

export function registerRestrictionCommands(program: Command): void {
  const group = program.command('restrictions').description('Restrictions: denials that override any binding (e.g. nobody deletes Agents in prod).');
  example(group.command('list').description('List the restrictions (* = everyone or everywhere).'), 'occ restrictions list').action(
    action(async ({ connection, options }) => {
      const items = await connection.client.listAll('listRestrictions', {});
      printList({ items, nextCursor: null }, await viewFor(connection.client, options), options);
    }),
  );
  example(group.command('get').argument('<restriction>', 'restriction id (rst_…)').description('Show one restriction.'), 'occ restrictions get rst_…').action(
    action(async ({ connection, options }, [id]) => {
      const restriction = (await connection.client.call('getRestriction', { params: { id: id! } })).data;
      printOne(restriction, await viewFor(connection.client, options), options);
    }),
  );
  example(
    group
      .command('create')
      .addOption(
        new Option('-f, --file <path>', "JSON or YAML: action, resourceKind, and optionally principal, namespace (names or the API's ids), resourceId").makeOptionMandatory(),
      )
      .description('Create a restriction from a file; what it leaves out, it applies to everyone and everywhere.'),
    'occ restrictions create -f no-prod-deletes.yaml   # { action: delete, resourceKind: agent, namespace: prod }',
  ).action(
    action<{ file: string }>(async ({ connection, options }, _args, { file }) => {
      const body = await idsForNames(connection.client, await readResourceFile(file), ['principal', 'namespace']);
      const restriction = (await connection.client.call('createRestriction', { body: body as never })).data;
      printOne(restriction, await viewFor(connection.client, options), options);
    }),
  );
  example(group.command('delete').argument('<restriction>', 'restriction id (rst_…)').description('Delete a restriction.'), 'occ restrictions delete rst_…').action(
    action(async ({ connection, options }, [id]) => {
      await connection.client.call('deleteRestriction', { params: { id: id! } });
      note(`Restriction ${id} deleted.`, options);
    }),
  );
}
