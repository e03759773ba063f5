import { Option, type Command } from 'commander';
import { createApiClient } from '@occ/contracts/client';
import { action } from '../command-context.ts';
import { configPath, contextNameFor, readConfig, saveContext, writeConfig } from '../context/config-file.ts';
import { USER_AGENT } from '../context/connection.ts';
import { namespaceId } from '../context/resolve.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { readSecretValue } from '../input/read-input.ts';
import { promptHidden } from '../input/prompt-secret.ts';
import { isDataFormat } from '../output/output-format.ts';
import { formatTable, note, printDocument } from '../output/render.ts';
import { example } from '../program.ts';
import { loginWithSso } from './sign-in.ts';

interface LoginFlags {
  keyFile?: string;
  name?: string;
  sso?: boolean;
}

/** The key from --key-file, standard input, or a prompt that does not echo — never an argument. */
async function readKey(flags: LoginFlags): Promise<string> {
  if (!flags.keyFile && process.stdin.isTTY) return (await promptHidden('API key: ')).trim();
  return (await readSecretValue({ what: 'API key', ...(flags.keyFile ? { fromFile: flags.keyFile } : {}) })).trim();
}

export function registerContextCommands(program: Command): void {
  example(
    program
      .command('login')
      .description(
        'Check an API key against a server and save it as a context (mode 0600). The key is read from standard input, --key-file, or a prompt; never from an argument. With --sso: sign in at the identity provider instead (a code to enter in a browser) and save the session.',
      )
      .addOption(new Option('--key-file <path>', 'read the API key from this file'))
      .addOption(new Option('--sso', "single sign-on: open the provider's page shown, enter the code; the session (8 hours) is saved as the context's credential"))
      .addOption(new Option('--name <context>', 'the context name (default: host-port of the server)')),
    'occ login --server http://127.0.0.1:8080 < .occ-data/admin-api-key',
    'occ login --server https://occ.example.com --key-file ~/occ.key -n team-a --name prod',
    'occ login --sso --server https://occ.example.com -n team-a',
  ).action(
    action<LoginFlags>(async ({ options }, _args, flags) => {
      if (flags.sso && flags.keyFile) throw new CliError('--sso and --key-file exclude each other: single sign-on needs no API key', EXIT.USAGE);
      if (flags.sso) return loginWithSso(options, flags);
      const server = options.server ?? process.env.OCC_SERVER;
      if (!server) throw new CliError('occ login needs --server URL', EXIT.USAGE);
      const apiKey = await readKey(flags);
      if (!apiKey) throw new CliError('The API key is empty', EXIT.USAGE);
      const client = createApiClient({ server, apiKey, fetch: (input, init) => fetch(input, init), userAgent: USER_AGENT });
      // Any valid key may list Namespaces (the list is filtered), so this checks the key and nothing more.
      await client.call('listNamespaces', { params: undefined, query: { limit: 1 } });
      const namespace = options.namespace ?? process.env.OCC_NAMESPACE;
      if (namespace) await namespaceId(client, namespace);
      const name = flags.name ?? contextNameFor(server);
      saveContext(name, { server: client.server, apiKey, ...(namespace ? { namespace } : {}) }, { makeCurrent: true });
      note(`Signed in to ${client.server}; context ${name} is current (${configPath()}).`, { output: 'table' });
    }),
  );

  const group = program.command('context').alias('contexts').description('The servers you signed in to, and which one commands use.');
  example(group.command('list').description('List the contexts (the current one is marked *).'), 'occ context list').action(
    action(async ({ options }) => {
      const config = readConfig();
      const rows = Object.entries(config.contexts).map(([name, c]) => ({ name, server: c.server, namespace: c.namespace ?? null, current: name === config.currentContext }));
      if (isDataFormat(options.output)) return printDocument({ currentContext: config.currentContext ?? null, contexts: rows }, options);
      if (options.output === 'name') return void rows.forEach((row) => void process.stdout.write(`context/${row.name}\n`));
      if (options.quiet) return void rows.forEach((row) => void process.stdout.write(`${row.name}\n`));
      if (rows.length === 0) return note('No contexts yet: occ login --server URL (occ up writes one for the controller it starts).', options);
      process.stdout.write(
        formatTable(
          ['current', 'name', 'server', 'namespace'],
          rows.map((r) => [r.current ? '*' : '', r.name, r.server, r.namespace ?? '-']),
        ),
      );
    }),
  );
  example(group.command('use').argument('<context>').description('Make a context current.'), 'occ context use prod').action(
    action(async ({ options }, [name]) => {
      const config = readConfig();
      if (!config.contexts[name!]) throw new CliError(`No context named ${name} (occ context list)`, EXIT.NOT_FOUND);
      writeConfig({ ...config, currentContext: name! });
      note(`Context ${name} is current.`, options);
    }),
  );
  example(
    group.command('set-namespace').argument('<namespace>', 'name or id').description("Set the current context's default Namespace."),
    'occ context set-namespace team-a',
  ).action(
    action(async ({ options, connection }, [namespace]) => {
      const config = readConfig();
      const name = connection.contextName;
      if (!name || !config.contexts[name]) throw new CliError('No current context: run occ login first', EXIT.USAGE);
      await namespaceId(connection.client, namespace);
      config.contexts[name]!.namespace = namespace!;
      writeConfig(config);
      note(`Context ${name} now uses Namespace ${namespace}.`, options);
    }),
  );
  example(
    group
      .command('delete')
      .argument('<context>')
      .description('Forget a context and its credential here only: an API key stays valid on the server, a single sign-on session until it ends (occ logout ends it).'),
    'occ context delete old',
  ).action(
    action(async ({ options }, [name]) => {
      const config = readConfig();
      if (!config.contexts[name!]) throw new CliError(`No context named ${name}`, EXIT.NOT_FOUND);
      delete config.contexts[name!];
      if (config.currentContext === name) delete config.currentContext;
      writeConfig(config);
      note(`Context ${name} deleted.`, options);
    }),
  );
}
