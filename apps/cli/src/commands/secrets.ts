import { Option, type Command } from 'commander';
import type { Secret } from '@occ/contracts';
import { action } from '../command-context.ts';
import { secretId } from '../context/resolve.ts';
import { readSecretValue } from '../input/read-input.ts';
import { age, note, printList, printOne, type View } from '../output/render.ts';
import { example } from '../program.ts';

const view: View<Secret> = {
  kind: 'secret',
  id: (s) => s.id,
  name: (s) => s.name,
  wide: [
    ['created', (s) => s.createdAt],
    ['updated at', (s) => s.updatedAt],
  ],
  columns: [
    ['name', (s) => s.name],
    ['id', (s) => s.id],
    ['version', (s) => s.version],
    ['updated', (s) => age(s.updatedAt)],
  ],
};

interface ValueFlags {
  fromFile?: string;
  fromEnv?: string;
}

/** The value never comes from an argument: standard input (the default), a file or a variable. */
function valueOptions(command: Command): Command {
  return command
    .addOption(new Option('--from-file <path>', 'read the value from this file'))
    .addOption(new Option('--from-env <variable>', 'read the value from this environment variable'));
}

export function registerSecretCommands(program: Command): void {
  const group = program.command('secrets').description('Secrets: write-only values Configurations bind as environment variables (metadata only is ever shown).');
  example(group.command('list').description('List the Secrets of the Namespace.'), 'occ secrets list -n team-a').action(
    action(async ({ connection, options, namespace }) => {
      printList({ items: await connection.client.listAll('listSecrets', { params: { ns: await namespace() } }), nextCursor: null }, view, options);
    }),
  );
  example(group.command('get').argument('<secret>', 'name or id').description("Show a Secret's metadata."), 'occ secrets get model-key').action(
    action(async ({ connection, options, namespace }, [ref]) => {
      const ns = await namespace();
      printOne((await connection.client.call('getSecret', { params: { ns, id: await secretId(connection.client, ns, ref!) } })).data, view, options);
    }),
  );
  example(
    valueOptions(
      group
        .command('create')
        .argument('<name>')
        .description('Create a Secret; the value comes from standard input unless --from-file or --from-env says otherwise (one trailing newline is dropped).'),
    ),
    'printf %s "$MODEL_API_KEY" | occ secrets create model-key',
    'occ secrets create model-key --from-env MODEL_API_KEY',
  ).action(
    action<ValueFlags>(async ({ connection, options, namespace }, [name], flags) => {
      const value = await readSecretValue(flags);
      printOne((await connection.client.call('createSecret', { params: { ns: await namespace() }, body: { name: name!, value } })).data, view, options);
    }),
  );
  example(
    valueOptions(group.command('set').argument('<secret>', 'name or id').description('Replace the value of a Secret (a new version).')),
    'occ secrets set model-key --from-file ./key.txt',
  ).action(
    action<ValueFlags>(async ({ connection, options, namespace }, [ref], flags) => {
      const ns = await namespace();
      const id = await secretId(connection.client, ns, ref!);
      const value = await readSecretValue(flags);
      printOne((await connection.client.call('updateSecret', { params: { ns, id }, body: { value } })).data, view, options);
    }),
  );
  example(group.command('delete').argument('<secret>', 'name or id').description('Delete a Secret no Configuration binds.'), 'occ secrets delete model-key').action(
    action(async ({ connection, options, namespace }, [ref]) => {
      const ns = await namespace();
      await connection.client.call('deleteSecret', { params: { ns, id: await secretId(connection.client, ns, ref!) } });
      note(`Secret ${ref} deleted.`, options);
    }),
  );
}
