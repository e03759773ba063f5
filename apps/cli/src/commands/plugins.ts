import { Option, type Command } from 'commander';
import { HARNESSES, type PluginCatalogEntry, type PluginCatalogTool } from '@occ/contracts';
import type { CommandContext } from '../command-context.ts';
import { action } from '../command-context.ts';
import { agentId, secretId } from '../context/resolve.ts';
import { isDataFormat } from '../output/output-format.ts';
import { formatTable, note, printDocument, printList, printOne, type View } from '../output/render.ts';
import { example } from '../program.ts';

const entryView: View<PluginCatalogEntry> = {
  kind: 'plugin',
  id: (p) => p.id,
  wide: [
    ['remote id', (p) => p.remoteId],
    ['package', (p) => p.package],
    ['description', (p) => p.description],
  ],
  columns: [
    ['key', (p) => p.id],
    ['name', (p) => p.name],
    ['version', (p) => p.version],
    ['bundled', (p) => (p.bundled ? 'yes' : '')],
    ['available', (p) => (p.available ? 'yes' : `no${p.unavailableReason ? `: ${p.unavailableReason}` : ''}`)],
    ['tools', (p) => (p.tools === null ? '?' : p.tools.length)],
  ],
};

interface DiscoveryFlags {
  harness: string;
  secret?: string;
  agent?: string;
}

/**
 * Where a search runs: an existing Agent's catalog with its bound credential (`--agent`), or a
 * harness's catalog before the Agent exists, with a Secret of the Namespace as credential. A
 * token is never taken on the command line.
 */
type DiscoveryTarget = { ns: string; client: CommandContext['connection']['client'] } & (
  | { agent: string }
  | { agent: undefined; create: { harness: (typeof HARNESSES)[number]; secretRef?: { kind: 'secret'; namespaceId: string; id: string } } }
);

async function discoveryTarget(context: CommandContext, flags: DiscoveryFlags): Promise<DiscoveryTarget> {
  const ns = await context.namespace();
  const client = context.connection.client;
  if (flags.agent) return { ns, client, agent: await agentId(client, ns, flags.agent) };
  const secretRef = flags.secret ? { kind: 'secret' as const, namespaceId: ns, id: await secretId(client, ns, flags.secret) } : undefined;
  return { ns, client, agent: undefined, create: { harness: flags.harness as (typeof HARNESSES)[number], ...(secretRef ? { secretRef } : {}) } };
}

const discoveryOptions = (command: Command) =>
  command
    .addOption(new Option('--harness <harness>', 'whose catalog, before the Agent exists').choices([...HARNESSES]).default('openclaw'))
    .addOption(new Option('--secret <secret>', 'a Secret of the Namespace to discover with (e.g. the codex_pat)'))
    .addOption(new Option('--agent <agent>', "an existing Agent's catalog, with its bound credential"));

function printTools(tools: PluginCatalogTool[] | null): void {
  if (tools === null) return void process.stderr.write('Tools: unknown (the catalog does not list them).\n');
  if (tools.length === 0) return void process.stderr.write('Tools: none.\n');
  process.stdout.write(
    formatTable(
      ['tool', 'name', 'available', 'writes'],
      tools.map((t) => [
        t.id,
        t.name,
        t.available === false ? `no${t.unavailableReason ? `: ${t.unavailableReason}` : ''}` : 'yes',
        t.writes === undefined ? '?' : t.writes ? 'yes' : 'no',
      ]),
    ),
  );
}

export function registerPluginCommands(program: Command): void {
  const group = program.command('plugins').description("Plugin discovery: the catalog a harness (or an Agent's credential) can see.");
  example(
    discoveryOptions(group.command('search').argument('[query]').addOption(new Option('--cursor <cursor>', 'the next page (printed after a page)'))).description(
      'Search one page of a plugin catalog.',
    ),
    'occ plugins search memory',
    'occ plugins search linear --harness codex --secret codex-pat',
    'occ plugins search --agent support-bot',
  ).action(
    action<DiscoveryFlags & { cursor?: string }>(async (context, [query], flags) => {
      const target = await discoveryTarget(context, flags);
      const paging = { ...(query ? { q: query } : {}), ...(flags.cursor ? { cursor: flags.cursor } : {}) };
      const page = !('create' in target)
        ? (await target.client.call('discoverExistingAgentPlugins', { params: { ns: target.ns, id: target.agent }, body: paging })).data
        : (await target.client.call('discoverAgentPlugins', { params: { ns: target.ns }, body: { ...target.create, ...paging } })).data;
      if (isDataFormat(context.options.output)) return printDocument(page, context.options);
      printList({ items: page.plugins, nextCursor: page.nextCursor }, entryView, context.options);
      if (page.setup) note(`Setup: ${page.setup.message}${page.setup.links.map((l) => `\n  ${l.label}: ${l.url}`).join('')}`, context.options);
    }),
  );
  example(
    discoveryOptions(group.command('show').argument('<plugin>', "the entry's key (or its remote id)").addOption(new Option('--tools', 'list its tools'))).description(
      'Show one catalog entry and, with --tools, its tools.',
    ),
    'occ plugins show openclaw:llm-task --tools',
  ).action(
    action<DiscoveryFlags & { tools?: boolean }>(async (context, [pluginId], flags) => {
      const target = await discoveryTarget(context, flags);
      const entry = !('create' in target)
        ? (await target.client.call('discoverExistingAgentPluginDetails', { params: { ns: target.ns, id: target.agent }, body: { pluginId: pluginId! } })).data
        : (await target.client.call('discoverAgentPluginDetails', { params: { ns: target.ns }, body: { ...target.create, pluginId: pluginId! } })).data;
      if (isDataFormat(context.options.output)) return printDocument(entry, context.options);
      if (context.options.output === 'name' || context.options.quiet) return printOne(entry, entryView, context.options);
      printList({ items: [entry], nextCursor: null }, entryView, context.options);
      if (entry.description) process.stdout.write(`\n${entry.description}\n`);
      if (flags.tools) {
        process.stdout.write('\n');
        printTools(entry.tools);
      }
    }),
  );
}
