import { Option, type Command } from 'commander';
import { MAX_API_KEY_DAYS, type ApiKey } from '@occ/contracts';
import { action } from '../../command-context.ts';
import { CliError, EXIT } from '../../exit-codes.ts';
import { isDataFormat } from '../../output/output-format.ts';
import { formatTable, note, printDocument, printList, type View } from '../../output/render.ts';
import { example } from '../../program.ts';
import { apiKeyId, principalId } from './references.ts';

/** Active, revoked or expired: what a person scanning the list wants to know first. */
function state(key: ApiKey, now = Date.now()): string {
  if (key.revokedAt) return 'revoked';
  return Date.parse(key.expiresAt) <= now ? 'expired' : 'active';
}

// Metadata only: the key itself is never stored, so no listing can show it.
const view: View<ApiKey> = {
  kind: 'key',
  id: (k) => k.id,
  name: (k) => k.name,
  wide: [
    ['principal', (k) => k.principalId],
    ['created', (k) => k.createdAt],
    ['revoked', (k) => k.revokedAt],
  ],
  columns: [
    ['name', (k) => k.name],
    ['id', (k) => k.id],
    ['prefix', (k) => k.prefix],
    ['state', (k) => state(k)],
    ['expires', (k) => k.expiresAt],
  ],
};

const principalOption = () => new Option('--principal <principal>', 'whose keys: a principal name or id').makeOptionMandatory();

function expiryDays(value: string): number {
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > MAX_API_KEY_DAYS) throw new CliError(`--expires-in-days is a whole number of days from 1 to ${MAX_API_KEY_DAYS}`, EXIT.USAGE);
  return days;
}

export function registerKeyCommands(program: Command): void {
  const group = program.command('keys').description("API keys: a principal's credentials. A key is shown once, when it is created.");
  example(group.command('list').addOption(principalOption()).description("List a principal's keys (metadata only)."), 'occ keys list --principal ci-deployer').action(
    action<{ principal: string }>(async ({ connection, options }, _args, flags) => {
      const id = await principalId(connection.client, flags.principal);
      printList({ items: await connection.client.listAll('listApiKeys', { params: { id } }), nextCursor: null }, view, options);
    }),
  );
  example(
    group
      .command('create')
      .addOption(principalOption())
      .addOption(new Option('--name <name>', 'what the key is for').default(`cli-${new Date().toISOString().slice(0, 10)}`, 'cli-<today>'))
      .addOption(new Option('--expires-in-days <days>', `lifetime, 1 to ${MAX_API_KEY_DAYS} (default: the server's, 30)`).argParser(expiryDays))
      .description('Issue a key and print it once: alone on stdout with --quiet, in the table otherwise, with its metadata in json/yaml.'),
    'occ keys create --principal ci-deployer --name github-actions --quiet > ci.key',
  ).action(
    action<{ principal: string; name: string; expiresInDays?: number }>(async ({ connection, options }, _args, flags) => {
      // Checked before the key exists: it is shown once, and `kind/name` would not show it.
      if (options.output === 'name') throw new CliError('keys create prints the new key once: -o name would lose it; use -q, -o json|yaml or the table', EXIT.USAGE);
      const id = await principalId(connection.client, flags.principal);
      const body = { name: flags.name, ...(flags.expiresInDays ? { expiresInDays: flags.expiresInDays } : {}) };
      const created = (await connection.client.call('createApiKey', { params: { id }, body })).data;
      if (isDataFormat(options.output)) return printDocument(created, options);
      if (options.quiet) return void process.stdout.write(`${created.key}\n`);
      process.stdout.write(formatTable(['name', 'id', 'expires', 'key'], [[created.apiKey.name, created.apiKey.id, created.apiKey.expiresAt, created.key]]));
      note('Store the key now: it is not shown again. Sign in with it: occ login --server URL < FILE', options);
    }),
  );
  example(
    group.command('revoke').argument('<key>', 'key id or name').addOption(principalOption()).description('Revoke a key; requests signed with it are refused from then on.'),
    'occ keys revoke --principal ci-deployer key_…',
  ).action(
    action<{ principal: string }>(async ({ connection, options }, [ref], flags) => {
      const id = await principalId(connection.client, flags.principal);
      await connection.client.call('revokeApiKey', { params: { id, keyId: await apiKeyId(connection.client, id, ref!) } });
      note(`API key ${ref} revoked.`, options);
    }),
  );
}
