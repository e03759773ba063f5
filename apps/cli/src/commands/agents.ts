import { Option, type Command } from 'commander';
import { HARNESSES, type Agent } from '@occ/contracts';
import { driftText, type ApiClient } from '@occ/contracts/client';
import { resolveAgentDocument } from '../agents/agent-document.ts';
import { editAgentInEditor } from '../agents/edit-in-editor.ts';
import { applyPluginEdits, type PluginEdits } from '../agents/plugin-edits.ts';
import { action } from '../command-context.ts';
import { agentId, configurationId, secretId } from '../context/resolve.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { readResourceFile } from '../input/read-input.ts';
import { APPLIED, applyOneFile } from '../manifests/apply-one-file.ts';
import { agentKind } from '../manifests/kinds/agent.ts';
import { isTableFormat } from '../output/output-format.ts';
import { age, note, printDocument, printList, printOne, type View } from '../output/render.ts';
import { example } from '../program.ts';

const view: View<Agent> = {
  kind: 'agent',
  id: (a) => a.id,
  name: (a) => a.name,
  wide: [
    ['configuration', (a) => a.configurationId],
    ['version', (a) => a.version],
    [
      'disabled plugins',
      (a) =>
        Object.entries(a.plugins)
          .filter(([, s]) => !s.enabled)
          .map(([k]) => k)
          .join(','),
    ],
    ['service principal', (a) => a.servicePrincipalId],
    ['updated', (a) => age(a.updatedAt)],
  ],
  columns: [
    ['name', (a) => a.name],
    ['id', (a) => a.id],
    ['harness', (a) => a.harness],
    ['desired', (a) => a.desiredState],
    [
      'plugins',
      (a) =>
        Object.entries(a.plugins)
          .filter(([, s]) => s.enabled)
          .map(([k]) => k)
          .join(','),
    ],
    ['active revision', (a) => a.activeRevisionId],
    ['age', (a) => age(a.createdAt)],
  ],
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** An Agent document (`-f`) with its names resolved to ids (agents/agent-document.ts). */
async function agentBody(client: ApiClient, ns: string, path: string): Promise<Record<string, unknown>> {
  return resolveAgentDocument(await readResourceFile(path), {
    configurationId: (name) => configurationId(client, ns, name),
    secretId: (name) => secretId(client, ns, name),
  });
}

export function registerAgentCommands(program: Command): void {
  const group = program.command('agents').alias('agent').description('Agents: a harness, a Configuration, plugin selections and tool policies.');
  example(group.command('list').description('List the Agents of the Namespace.'), 'occ agents list -n team-a').action(
    action(async ({ connection, options, namespace }) => {
      printList({ items: await connection.client.listAll('listAgents', { params: { ns: await namespace() } }), nextCursor: null }, view, options);
    }),
  );
  example(
    group
      .command('get')
      .argument('<agent>', 'name or id')
      .description('Show an Agent (-o yaml for its plugin map); in a table, then its drift: what a plain deploy would change (as occ status says it).'),
    'occ agents get support-bot -o yaml',
  ).action(
    action(async ({ connection, options, namespace }, [ref]) => {
      const ns = await namespace();
      const client = connection.client;
      const id = await agentId(client, ns, ref!);
      printOne((await client.call('getAgent', { params: { ns, id } })).data, view, options);
      // On stderr, for a person: data formats stay the API's data alone.
      if (isTableFormat(options.output) && !options.quiet) note(driftText((await client.call('getAgentDrift', { params: { ns, id } })).data, 'occ deploy'), options);
    }),
  );
  example(
    group
      .command('create')
      .argument('[name]')
      .addOption(new Option('--configuration <configuration>', 'its Configuration, by name or id'))
      .addOption(new Option('--harness <harness>', 'the agent harness').choices([...HARNESSES]).default('openclaw'))
      .addOption(new Option('--codex-pat <secret>', 'codex harness: the Secret holding the Codex personal access token'))
      .addOption(new Option('--plugin <key>', 'select and enable a plugin (repeatable)').argParser(collect))
      .addOption(new Option('-f, --file <path>', 'create from a JSON or YAML document instead (the API body; configuration/codexPat by name)'))
      .description('Create an Agent.'),
    'occ agents create support-bot --configuration base --plugin openclaw:llm-task',
    'occ agents create -f support-bot.yaml',
  ).action(
    action<{ configuration?: string; harness: string; codexPat?: string; plugin?: string[]; file?: string }>(async ({ connection, options, namespace }, [name], flags) => {
      const ns = await namespace();
      const client = connection.client;
      let body: Record<string, unknown>;
      if (flags.file) body = await agentBody(client, ns, flags.file);
      else {
        if (!name || !flags.configuration) throw new CliError('occ agents create needs NAME and --configuration (or -f FILE)', EXIT.USAGE);
        body = {
          name,
          harness: flags.harness,
          configurationId: await configurationId(client, ns, flags.configuration),
          ...(flags.codexPat ? { harnessAuth: { method: 'codex_pat', secretId: await secretId(client, ns, flags.codexPat) } } : {}),
          ...(flags.plugin ? { plugins: Object.fromEntries(flags.plugin.map((key) => [key, { enabled: true }])) } : {}),
        };
      }
      printOne((await client.call('createAgent', { params: { ns }, body: body as never })).data, view, options);
    }),
  );
  example(
    group
      .command('edit')
      .argument('<agent>', 'name or id')
      .addOption(new Option('--name <name>', 'rename the Agent'))
      .addOption(new Option('--configuration <configuration>', 'use another Configuration (name or id)'))
      .addOption(new Option('--plugin <key>', 'the plugin selection the flags below change; added if new (repeatable)').argParser(collect))
      .addOption(new Option('--enable', 'enable the named plugins'))
      .addOption(new Option('--disable', 'disable the named plugins (the selection and its policy stay)').conflicts('enable'))
      .addOption(new Option('--tool <name=on|off>', 'a tool override of the one named plugin (repeatable)').argParser(collect))
      .addOption(new Option('--tool-default <on|off>', "the named plugin's default for tools without an override"))
      .addOption(new Option('--remove-plugin <key>', 'delete a plugin selection (repeatable)').argParser(collect))
      .description(
        'Change an Agent. Without edit flags: its document (as occ agents apply -f takes it) opens in $VISUAL or $EDITOR (else vi), and what you save is written with If-Match on the version read. With flags: read it, apply the flags, write it back with If-Match. A concurrent change answers 412 → exit 5. Deploy to run the change.',
      ),
    'occ agents edit support-bot --plugin openclaw:browser --enable --tool browser=off',
    'occ agents edit support-bot --plugin openclaw:browser --disable',
    'EDITOR=nano occ agents edit support-bot',
  ).action(
    action<{ name?: string; configuration?: string; plugin?: string[]; enable?: boolean; disable?: boolean; tool?: string[]; toolDefault?: string; removePlugin?: string[] }>(
      async (context, [ref], flags) => {
        const { connection, options } = context;
        const client = connection.client;
        const editFlags = [flags.name, flags.configuration, flags.plugin, flags.enable, flags.disable, flags.tool, flags.toolDefault, flags.removePlugin];
        if (editFlags.every((flag) => flag === undefined)) {
          const edited = await editAgentInEditor(context, (ns) => agentId(client, ns, ref!));
          if ('exit' in edited) return edited.exit;
          note(`Agent ${edited.updated.name} updated (version ${edited.updated.version}); run occ deploy ${edited.updated.name} to run it.`, options);
          return printOne(edited.updated, view, options);
        }
        const ns = await context.namespace();
        const id = await agentId(client, ns, ref!);
        const current = await client.call('getAgent', { params: { ns, id } });
        const edits: PluginEdits = {
          plugins: flags.plugin ?? [],
          tools: flags.tool ?? [],
          remove: flags.removePlugin ?? [],
          ...(flags.enable ? { enable: true } : flags.disable ? { enable: false } : {}),
          ...(flags.toolDefault !== undefined ? { toolDefault: flags.toolDefault } : {}),
        };
        const touchesPlugins = edits.plugins.length + edits.remove.length > 0;
        const body = {
          ...(flags.name ? { name: flags.name } : {}),
          ...(flags.configuration ? { configurationId: await configurationId(client, ns, flags.configuration) } : {}),
          // `{}` clears the map on the API, so an edit that leaves no selection sends exactly that.
          ...(touchesPlugins ? { plugins: applyPluginEdits(current.data.plugins, edits) } : {}),
        };
        if (Object.keys(body).length === 0) throw new CliError('Nothing to change: pass --name, --configuration, --plugin or --remove-plugin', EXIT.USAGE);
        const updated = await client.call('updateAgent', { params: { ns, id }, body, ...(current.etag ? { ifMatch: current.etag } : {}) });
        note(`Agent ${updated.data.name} updated (version ${updated.data.version}); run occ deploy ${updated.data.name} to run it.`, options);
        printOne(updated.data, view, options);
      },
    ),
  );
  example(
    group
      .command('apply')
      .addOption(new Option('-f, --file <path>', 'a JSON or YAML Agent document').makeOptionMandatory())
      .description(
        'Create the Agent the file names, or update it (name, configuration, harnessAuth, plugins, pluginApprovers) if it exists, with If-Match on the version it read; an Agent equal to the file is not written (as occ apply -f).',
      ),
    'occ agents apply -f support-bot.yaml',
  ).action(
    action<{ file: string }>(async (context, _args, { file }) => {
      const applied = await applyOneFile(context, file, agentKind);
      note(`Agent ${applied.name} ${APPLIED[applied.outcome]}.`, context.options);
      printOne((await context.connection.client.call('getAgent', { params: { ns: applied.namespaceId, id: applied.id } })).data, view, context.options);
    }),
  );
  example(
    group.command('capabilities').argument('<agent>', 'name or id').description("What the Agent's plugin driver supports (tool defaults, overrides, approvals, approvers)."),
    'occ agents capabilities support-bot',
  ).action(
    action(async ({ connection, options, namespace }, [ref]) => {
      const ns = await namespace();
      printDocument((await connection.client.call('getAgentPluginCapabilities', { params: { ns, id: await agentId(connection.client, ns, ref!) } })).data, options);
    }),
  );
  example(
    group.command('delete').argument('<agent>', 'name or id').description('Delete a stopped Agent (a running one answers 409: occ stop it first).'),
    'occ stop support-bot && occ agents delete support-bot',
  ).action(
    action(async ({ connection, options, namespace }, [ref]) => {
      const ns = await namespace();
      await connection.client.call('deleteAgent', { params: { ns, id: await agentId(connection.client, ns, ref!) } });
      note(`Agent ${ref} deleted.`, options);
    }),
  );
}
