import { Option, type Command } from 'commander';
import type { AuditEvent } from '@occ/contracts';
import { action } from '../command-context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { isTableFormat } from '../output/output-format.ts';
import { printList, type View } from '../output/render.ts';
import { example } from '../program.ts';
import { loadNameBook, type NameBook } from './iam/references.ts';

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

export function registerAuditCommands(program: Command): void {
  example(
    program
      .command('audit')
      .addOption(new Option('--limit <n>', "events per page, 1 to 200 (default: the server's, 50)").argParser(pageSize))
      .addOption(new Option('--cursor <cursor>', 'the next page, as the previous one printed it'))
      .description('The audit log, newest first: who did what to which resource, and how it ended.'),
    'occ audit --limit 20',
    'occ audit -o json | jq \'.items[] | select(.action == "agents.deploy")\'',
  ).action(
    action<{ limit?: number; cursor?: string }>(async ({ connection, options }, _args, flags) => {
      const query = { ...(flags.limit ? { limit: flags.limit } : {}), ...(flags.cursor ? { cursor: flags.cursor } : {}) };
      const page = (await connection.client.call('listAuditEvents', { query })).data;
      // Names only for a person's table; scripts get the API's ids unchanged.
      const needed = isTableFormat(options.output) && !options.quiet;
      printList(page, auditView(await loadNameBook(connection.client, { principals: needed, namespaces: needed })), options);
    }),
  );
}
