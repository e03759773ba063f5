import type { Command } from 'commander';
import type { AgentRevisionView } from '@occ/contracts';
import { action } from '../command-context.ts';
import { agentId, revisionId } from '../context/resolve.ts';
import { age, printList, printOne, type View } from '../output/render.ts';
import { example } from '../program.ts';

export const revisionView: View<AgentRevisionView> = {
  kind: 'revision',
  id: (r) => r.id,
  name: (r) => String(r.revision),
  wide: [
    ['plugin driver', (r) => r.pluginDriverId],
    ['compute driver', (r) => r.computeDriverId],
    [
      'disabled plugins',
      (r) =>
        Object.entries(r.plugins)
          .filter(([, s]) => !s.enabled)
          .map(([k]) => k)
          .join(','),
    ],
    ['actor', (r) => r.actorId],
  ],
  columns: [
    ['revision', (r) => r.revision],
    ['id', (r) => r.id],
    ['harness', (r) => r.harness],
    [
      'plugins',
      (r) =>
        Object.entries(r.plugins)
          .filter(([, s]) => s.enabled)
          .map(([k]) => k)
          .join(','),
    ],
    ['configuration', (r) => `${r.configuration.id}@${r.configuration.generation}`],
    ['age', (r) => age(r.createdAt)],
  ],
};

export function registerRevisionCommands(program: Command): void {
  const group = program.command('revisions').description("An Agent's immutable AgentRevisions, newest first.");
  example(group.command('list').argument('<agent>', 'name or id').description("List an Agent's revisions."), 'occ revisions list support-bot').action(
    action(async ({ connection, options, namespace }, [ref]) => {
      const ns = await namespace();
      const id = await agentId(connection.client, ns, ref!);
      printList({ items: await connection.client.listAll('listAgentRevisions', { params: { ns, id } }), nextCursor: null }, revisionView, options);
    }),
  );
  example(
    group.command('get').argument('<agent>', 'name or id').argument('<revision>', 'number, latest or id').description('Show one revision (-o yaml for its snapshot).'),
    'occ revisions get support-bot 2 -o yaml',
  ).action(
    action(async ({ connection, options, namespace }, [ref, revision]) => {
      const ns = await namespace();
      const id = await agentId(connection.client, ns, ref!);
      const rev = await revisionId(connection.client, ns, id, revision!);
      printOne((await connection.client.call('getAgentRevision', { params: { ns, id, rev } })).data, revisionView, options);
    }),
  );
}
