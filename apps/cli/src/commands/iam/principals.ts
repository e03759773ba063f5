import { Option, type Command } from 'commander';
import type { Principal } from '@occ/contracts';
import { action } from '../../command-context.ts';
import { age, note, printList, printOne, type View } from '../../output/render.ts';
import { example } from '../../program.ts';
import { principalId } from './references.ts';

const view: View<Principal> = {
  kind: 'principal',
  id: (p) => p.id,
  name: (p) => p.name,
  wide: [['created', (p) => p.createdAt]],
  columns: [
    ['name', (p) => p.name],
    ['kind', (p) => p.kind],
    ['id', (p) => p.id],
    ['agent', (p) => p.agentId],
    ['age', (p) => age(p.createdAt)],
  ],
};

export function registerPrincipalCommands(program: Command): void {
  const group = program.command('principals').description('Principals: the people and services that sign in with API keys (Installation administration).');
  example(group.command('list').description("List every principal, Agents' service principals included."), 'occ principals list -o json').action(
    action(async ({ connection, options }) => {
      printList({ items: await connection.client.listAll('listPrincipals', {}), nextCursor: null }, view, options);
    }),
  );
  example(group.command('get').argument('<principal>', 'name or id').description('Show one principal.'), 'occ principals get ci-deployer').action(
    action(async ({ connection, options }, [ref]) => {
      const id = await principalId(connection.client, ref!);
      printOne((await connection.client.call('getPrincipal', { params: { id } })).data, view, options);
    }),
  );
  example(
    group
      .command('create')
      .argument('<name>')
      .addOption(new Option('--kind <kind>', 'a person or a service (a script, CI)').choices(['human', 'service']).default('human'))
      .description('Create a principal; give it access with `occ bindings create` and a key with `occ keys create`.'),
    'occ principals create ci-deployer --kind service',
  ).action(
    action<{ kind: 'human' | 'service' }>(async ({ connection, options }, [name], { kind }) => {
      printOne((await connection.client.call('createPrincipal', { body: { kind, name: name! } })).data, view, options);
    }),
  );
  example(
    group.command('delete').argument('<principal>', 'name or id').description("Delete a principal with its keys and bindings (not your own, nor an Agent's)."),
    'occ principals delete ci-deployer',
  ).action(
    action(async ({ connection, options }, [ref]) => {
      await connection.client.call('deletePrincipal', { params: { id: await principalId(connection.client, ref!) } });
      note(`Principal ${ref} deleted.`, options);
    }),
  );
}
