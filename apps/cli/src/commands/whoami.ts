import type { Command } from 'commander';
import type { AccessBinding, CallerView } from '@occ/contracts';
import { ApiError, type ApiClient } from '@occ/contracts/client';
import { action, type CommandContext } from '../command-context.ts';
import { isDataFormat, type OutputFormat } from '../output/output-format.ts';
import { printDocument, printTable } from '../output/render.ts';
import { example } from '../program.ts';
import { bindingView } from './iam/bindings.ts';
import { loadNameBook } from './iam/references.ts';

/** What `occ whoami` prints: the server's answer about the caller, and where the CLI sent it. */
interface WhoAmI extends CallerView {
  /** Where the CLI took the key from: OCC_API_KEY or the context. */
  apiKeyFrom: 'OCC_API_KEY' | 'context' | null;
  server: string;
  context: string | null;
  namespace: string | null;
  /** The principal's bindings; null when this key may not list bindings (that needs installation administer). */
  bindings: AccessBinding[] | null;
}

/** The caller's own bindings if its key may list bindings at all (a 403 is an answer, not an error, here). */
async function readableBindings(client: ApiClient, principalId: string): Promise<AccessBinding[] | null> {
  try {
    return (await client.listAll('listAccessBindings', {})).filter((binding) => binding.principalId === principalId);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return null;
    throw error;
  }
}

/** Where the credential came from, and whether it is an API key or a single sign-on session (occ login --sso). */
function credentialLine(me: WhoAmI, sessionToken: boolean): string {
  const what = sessionToken ? 'single sign-on session' : 'API key';
  if (me.apiKeyFrom === 'OCC_API_KEY') return `${what} from OCC_API_KEY`;
  return me.apiKeyFrom === 'context' ? `${what} of context ${me.context}` : what;
}

async function printForPeople(client: ApiClient, me: WhoAmI, output: OutputFormat, sessionToken: boolean): Promise<void> {
  const { principal } = me;
  const rows: Array<[string, string]> = [
    ['Principal', `${principal.name} (${principal.kind}, ${principal.id})`],
    ['Credential', credentialLine(me, sessionToken)],
    ['Server', me.server],
    ['Context', me.context ?? '- (OCC_SERVER and OCC_API_KEY)'],
    ['Namespace', me.namespace ?? '-'],
  ];
  if (me.bindings === null) rows.push(['Bindings', 'not readable with this key (listing bindings needs installation administer)']);
  else if (me.bindings.length === 0) rows.push(['Bindings', 'none: it is granted nothing yet']);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  process.stdout.write(rows.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}\n`).join(''));
  if (!me.bindings?.length) return;
  const view = bindingView(await loadNameBook(client, { principals: true, roles: true, namespaces: true }));
  process.stdout.write('Bindings:\n');
  printTable(me.bindings, view, output);
}

async function whoami({ connection, options }: CommandContext): Promise<void> {
  const client = connection.client;
  const caller = (await client.call('getCaller', {})).data;
  const me: WhoAmI = {
    ...caller,
    apiKeyFrom: connection.apiKeyFrom,
    server: client.server,
    context: connection.contextName ?? null,
    namespace: options.namespace ?? connection.defaultNamespace ?? null,
    bindings: await readableBindings(client, caller.principal.id),
  };
  if (isDataFormat(options.output)) return printDocument(me, options);
  if (options.output === 'name') return void process.stdout.write(`principal/${me.principal.name}\n`);
  if (options.quiet) return void process.stdout.write(`${me.principal.id}\n`);
  await printForPeople(client, me, options.output, connection.sessionToken);
}

/** `occ whoami`, and `occ auth status` for the gh habit: who the key signs in as, where, and what it is granted. */
export function registerWhoAmICommands(program: Command): void {
  const description = 'Show who you are signed in as (the principal: name, kind, id), the server, context and Namespace, and your bindings when your key may read them.';
  example(program.command('whoami').description(description), 'occ whoami', 'occ whoami -o json').action(action(async (context) => whoami(context)));
  const auth = program.command('auth').description('Your sign-in: occ auth status (sign in with occ login).');
  example(auth.command('status').description(`${description} The same as occ whoami.`), 'occ auth status').action(action(async (context) => whoami(context)));
}
