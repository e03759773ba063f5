import type { Command } from 'commander';
import type { Namespace } from '@occ/contracts';
import { action } from '../command-context.ts';
import { namespaceId } from '../context/resolve.ts';
import { age, note, printList, printOne, type View } from '../output/render.ts';
import { example } from '../program.ts';

const view: View<Namespace> = {
  kind: 'namespace',
  id: (ns) => ns.id,
  name: (ns) => ns.name,
  columns: [
    ['name', (ns) => ns.name],
    ['id', (ns) => ns.id],
    ['age', (ns) => age(ns.createdAt)],
  ],
  wide: [['created', (ns) => ns.createdAt]],
};

export function registerNamespaceCommands(program: Command): void {
  const group = program.command('namespaces').alias('ns').description('Namespaces: where Agents, Secrets and Configurations live.');
  example(group.command('list').description('List the Namespaces you can see.'), 'occ namespaces list -o json').action(
    action(async ({ connection, options }) => {
      printList({ items: await connection.client.listAll('listNamespaces', {}), nextCursor: null }, view, options);
    }),
  );
  example(group.command('get').argument('<namespace>', 'name or id').description('Show one Namespace.'), 'occ namespaces get team-a').action(
    action(async ({ connection, options }, [ref]) => {
      const id = await namespaceId(connection.client, ref);
      printOne((await connection.client.call('getNamespace', { params: { ns: id } })).data, view, options);
    }),
  );
  example(group.command('create').argument('<name>').description('Create a Namespace.'), 'occ namespaces create team-a').action(
    action(async ({ connection, options }, [name]) => {
      printOne((await connection.client.call('createNamespace', { params: undefined, body: { name: name! } })).data, view, options);
    }),
  );
  example(group.command('delete').argument('<namespace>', 'name or id').description('Delete an empty Namespace.'), 'occ namespaces delete team-a').action(
    action(async ({ connection, options }, [ref]) => {
      const id = await namespaceId(connection.client, ref);
      await connection.client.call('deleteNamespace', { params: { ns: id } });
      note(`Namespace ${ref} deleted.`, options);
    }),
  );
}
