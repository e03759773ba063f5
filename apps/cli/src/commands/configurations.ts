import { Option, type Command } from 'commander';
import type { Configuration } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { action } from '../command-context.ts';
import { resolveSecretBindings } from '../configurations/secret-bindings.ts';
import { configurationId, secretId } from '../context/resolve.ts';
import { readResourceFile } from '../input/read-input.ts';
import { APPLIED, applyOneFile } from '../manifests/apply-one-file.ts';
import { configurationKind } from '../manifests/kinds/configuration.ts';
import { age, note, printList, printOne, type View } from '../output/render.ts';
import { example } from '../program.ts';

const view: View<Configuration> = {
  kind: 'configuration',
  id: (c) => c.id,
  name: (c) => c.name,
  // Which Secret each variable comes from, and the top-level sections of the native configuration.
  wide: [
    [
      'bindings',
      (c) =>
        Object.entries(c.secretBindings)
          .map(([variable, b]) => `${variable}=${b.secretId}`)
          .join(','),
    ],
    ['sections', (c) => Object.keys(c.values).join(',')],
  ],
  columns: [
    ['name', (c) => c.name],
    ['id', (c) => c.id],
    ['generation', (c) => c.generation],
    ['secrets', (c) => Object.keys(c.secretBindings).join(',')],
    ['updated', (c) => age(c.updatedAt)],
  ],
};

/**
 * A Configuration file: `name`, `values` (native OpenClaw configuration) and `secretBindings`,
 * where a binding may name its Secret (`{ secret: model-key }`) instead of giving its id.
 */
async function bodyFromFile(client: ApiClient, ns: string, path: string) {
  const document = await readResourceFile(path);
  if (document.secretBindings !== undefined) document.secretBindings = await resolveSecretBindings(document.secretBindings, (name) => secretId(client, ns, name), path);
  return document;
}

const fileOption = () => new Option('-f, --file <path>', 'a JSON or YAML file (- = standard input)').makeOptionMandatory();

export function registerConfigurationCommands(program: Command): void {
  const group = program.command('configurations').alias('config').description('Configurations: native OpenClaw configuration and the Secrets it binds.');
  example(group.command('list').description('List the Configurations of the Namespace.'), 'occ configurations list').action(
    action(async ({ connection, options, namespace }) => {
      printList({ items: await connection.client.listAll('listConfigurations', { params: { ns: await namespace() } }), nextCursor: null }, view, options);
    }),
  );
  example(
    group.command('get').argument('<configuration>', 'name or id').description('Show a Configuration (use -o yaml for its values).'),
    'occ configurations get base -o yaml',
  ).action(
    action(async ({ connection, options, namespace }, [ref]) => {
      const ns = await namespace();
      printOne((await connection.client.call('getConfiguration', { params: { ns, id: await configurationId(connection.client, ns, ref!) } })).data, view, options);
    }),
  );
  example(
    group.command('create').addOption(fileOption()).description('Create a Configuration from a file: name, values, secretBindings (VARIABLE: { secret: NAME }).'),
    'occ configurations create -f base.yaml',
  ).action(
    action<{ file: string }>(async ({ connection, options, namespace }, _args, { file }) => {
      const ns = await namespace();
      const body = await bodyFromFile(connection.client, ns, file);
      printOne((await connection.client.call('createConfiguration', { params: { ns }, body: body as never })).data, view, options);
    }),
  );
  example(
    group
      .command('apply')
      .addOption(fileOption())
      .description(
        'Create the Configuration the file names, or update it (values and bindings replaced) if it exists, with If-Match on the generation it read (a concurrent change answers 412 → exit 5); a Configuration equal to the file is not written (as occ apply -f).',
      ),
    'occ configurations apply -f base.yaml',
  ).action(
    action<{ file: string }>(async (context, _args, { file }) => {
      const applied = await applyOneFile(context, file, configurationKind);
      note(`Configuration ${applied.name} ${APPLIED[applied.outcome]}.`, context.options);
      printOne((await context.connection.client.call('getConfiguration', { params: { ns: applied.namespaceId, id: applied.id } })).data, view, context.options);
    }),
  );
  example(group.command('delete').argument('<configuration>', 'name or id').description('Delete a Configuration no Agent uses.'), 'occ configurations delete base').action(
    action(async ({ connection, options, namespace }, [ref]) => {
      const ns = await namespace();
      await connection.client.call('deleteConfiguration', { params: { ns, id: await configurationId(connection.client, ns, ref!) } });
      note(`Configuration ${ref} deleted.`, options);
    }),
  );
}
