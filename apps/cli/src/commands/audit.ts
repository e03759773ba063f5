import { Option, type Command } from 'commander';
import { ID_PREFIXES, type AuditEvent, type AuditEventQuery } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { action, type CommandContext } from '../command-context.ts';
import { agentId, configurationId, namespaceId, secretId } from '../context/resolve.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { parseSince } from '../logs/since.ts';
import { isTableFormat } from '../output/output-format.ts';
import { printList, type View } from '../output/render.ts';
import { example } from '../program.ts';
import { loadNameBook, principalId, roleId, type NameBook } from './iam/references.ts';

/** The request id (to find the server's log lines) and the details are in -o json|yaml. */
function auditView(names: NameBook): View<AuditEvent> {
  return {
    kind: 'auditevent',
    id: (e) => e.id,
    // The request id finds the server's log lines for the event.
    wide: [
      ['request', (e) => e.requestId],
      ['id', (e) => e.id],
    ],
    columns: [
      ['time', (e) => e.occurredAt],
      ['actor', (e) => names.principal(e.actorId)],
      ['action', (e) => e.action],
      ['outcome', (e) => e.outcome],
      ['namespace', (e) => names.namespace(e.namespaceId)],
      ['resource', (e) => (e.resource ? `${e.resource.kind}/${e.resource.id ?? '*'}` : null)],
    ],
  };
}

function pageSize(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new CliError('--limit is a whole number from 1 to 200', EXIT.USAGE);
  return limit;
}

/** `--since` / `--until`: what `occ logs --since` takes (10m, 1h30m, 2d, an RFC 3339 time, a date at UTC midnight), as a UTC time. */
const auditTime = (value: string): string => new Date(parseSince(value)).toISOString();

const ANY_ID = new RegExp(`^(${Object.values(ID_PREFIXES).join('|')})_[0-9a-f-]{36}$`);
const KIND = /^[a-z][a-z0-9_]*$/;

/** Resources whose name the CLI resolves; a Namespace's own ones in `-n` or the context's Namespace. */
const byName: Record<string, (client: ApiClient, ref: string, context: CommandContext) => Promise<string>> = {
  namespace: (client, ref) => namespaceId(client, ref),
  principal: (client, ref) => principalId(client, ref),
  role: (client, ref) => roleId(client, ref),
  agent: async (client, ref, context) => agentId(client, await context.namespace(), ref),
  secret: async (client, ref, context) => secretId(client, await context.namespace(), ref),
  configuration: async (client, ref, context) => configurationId(client, await context.namespace(), ref),
};

/** `--resource KIND` or `KIND/NAME-OR-ID`: the kind, and the id (a name resolved where the CLI can). */
async function resourceFilter(context: CommandContext, value: string): Promise<Pick<AuditEventQuery, 'resourceKind' | 'resourceId'>> {
  const slash = value.indexOf('/');
  const kind = slash < 0 ? value : value.slice(0, slash);
  const ref = slash < 0 ? undefined : value.slice(slash + 1);
  if (!KIND.test(kind) || ref === '')
    throw new CliError(`--resource is KIND or KIND/NAME-OR-ID (agent, agent/support-bot, secret/sec_…), not ${JSON.stringify(value)}`, EXIT.USAGE);
  if (ref === undefined) return { resourceKind: kind };
  const resolve = byName[kind];
  if (ANY_ID.test(ref) || !resolve) return { resourceKind: kind, resourceId: ref };
  return { resourceKind: kind, resourceId: await resolve(context.connection.client, ref, context) };
}

interface AuditFlags {
  limit?: number;
  cursor?: string;
  actor?: string;
  action?: string;
  resource?: string;
  since?: string;
  until?: string;
}

export function registerAuditCommands(program: Command): void {
  example(
    program
      .command('audit')
      .addOption(new Option('--actor <principal>', 'only what this principal did (name or prn_… id)'))
      .addOption(new Option('--action <action>', 'only this action (agents.deploy), or a prefix ending in .* (agents.*)'))
      .addOption(new Option('--resource <kind[/name]>', 'only events about this resource: KIND (agent) or KIND/NAME-OR-ID (agent/support-bot, in -n)'))
      .addOption(new Option('--since <time>', 'at or after this time: a time ago (30m, 1h30m, 7d) or an RFC 3339 time').argParser(auditTime))
      .addOption(new Option('--until <time>', 'before this time: a time ago (30m, 1h30m, 7d) or an RFC 3339 time').argParser(auditTime))
      .addOption(new Option('--limit <n>', "events per page, 1 to 200 (default: the server's, 50)").argParser(pageSize))
      .addOption(new Option('--cursor <cursor>', 'the next page, as the previous one printed it (with the same filters)'))
      .description('The audit log, newest first: who did what to which resource, and how it ended. -n NAMESPACE keeps one Namespace (the context default does not filter).'),
    'occ audit --limit 20',
    'occ audit --action agents.* --since 1h -n team-a',
    'occ audit --actor ci-deployer --resource agent/support-bot -n team-a',
    'occ audit -o json | jq \'.items[] | select(.outcome != "success")\'',
  ).action(
    action<AuditFlags>(async (context, _args, flags) => {
      const { connection, options } = context;
      const client = connection.client;
      // Only an explicit -n filters: the audit log is Installation-wide, the context's Namespace a default for commands that need one.
      const query: AuditEventQuery = {
        ...(flags.limit ? { limit: flags.limit } : {}),
        ...(flags.cursor ? { cursor: flags.cursor } : {}),
        ...(flags.actor ? { actorId: await principalId(client, flags.actor) } : {}),
        ...(flags.action ? { action: flags.action } : {}),
        ...(options.namespace !== undefined ? { namespaceId: await namespaceId(client, options.namespace) } : {}),
        ...(flags.resource ? await resourceFilter(context, flags.resource) : {}),
        ...(flags.since ? { since: flags.since } : {}),
        ...(flags.until ? { until: flags.until } : {}),
      };
      const page = (await client.call('listAuditEvents', { query })).data;
      // Names only for a person's table; scripts get the API's ids unchanged.
      const needed = isTableFormat(options.output) && !options.quiet;
      printList(page, auditView(await loadNameBook(client, { principals: needed, namespaces: needed })), options);
    }),
  );
}
