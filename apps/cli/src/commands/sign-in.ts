import { Option, type Command } from 'commander';
import type { SignInProvider } from '@occ/contracts';
import { ApiError, createApiClient } from '@occ/contracts/client';
import { action, type CommandContext } from '../command-context.ts';
import { configPath, contextNameFor, isCliSessionToken, readConfig, saveContext, writeConfig } from '../context/config-file.ts';
import { USER_AGENT, type GlobalOptions } from '../context/connection.ts';
import { endCliSession, pollDeviceSignIn, sessionClient } from '../context/device-sign-in.ts';
import { looksLikeId, namespaceId, secretId } from '../context/resolve.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { isDataFormat } from '../output/output-format.ts';
import { noNames, note, printDocument } from '../output/render.ts';
import { example } from '../program.ts';

/** `--server` as `occ login` takes it: an http(s) URL, without trailing slashes. */
function serverUrl(server: string): string {
  try {
    if (!/^https?:$/.test(new URL(server).protocol)) throw new Error('not http');
  } catch {
    throw new CliError(`--server must be a URL such as https://occ.example.com (got ${JSON.stringify(server.slice(0, 100))})`, EXIT.USAGE);
  }
  return server.replace(/\/+$/, '');
}

/** The server's refusals, with what to do next where the server's message alone would not say it. */
function signInError(error: unknown): unknown {
  if (error instanceof ApiError && error.code === 'SIGN_IN_NOT_CONFIGURED')
    return new CliError(`${error.message} (occ login --server URL < KEY_FILE; an administrator turns single sign-on on with occ sign-in provider set)`, EXIT.CONFLICT, error.code);
  return error;
}

/** Ends a session the CLI will not keep, saying nothing if that fails: it ends by itself anyway. */
async function abandon(server: string, token: string): Promise<void> {
  await endCliSession(server, token).catch(() => undefined);
}

/**
 * `occ login --sso`: the device authorization grant through OCC. The person opens the provider's
 * page (anywhere: another machine will do) and enters the code; the CLI polls OCC until the
 * provider says yes, then keeps the session's token as the context's credential, where an API key
 * would be: every other command then works unchanged.
 */
export async function loginWithSso(options: GlobalOptions, flags: { name?: string }): Promise<void> {
  const given = options.server ?? process.env.OCC_SERVER;
  if (!given) throw new CliError('occ login --sso needs --server URL', EXIT.USAGE);
  const server = serverUrl(given);
  const client = createApiClient({ server, fetch: (input, init) => fetch(input, init), userAgent: USER_AGENT });
  const started = await client.call('startDeviceSignIn', {}).then(
    (answer) => answer.data,
    (error: unknown) => Promise.reject(signInError(error)),
  );
  // Always on stderr, whatever -o or -q say: without it nobody can sign in.
  process.stderr.write(`To sign in, open ${started.verificationUriComplete ?? started.verificationUri} and enter the code ${started.userCode}\n`);
  process.stderr.write(`Waiting for the identity provider (this request expires at ${started.expiresAt})…\n`);
  const session = await pollDeviceSignIn(client, started).catch((error: unknown) => Promise.reject(signInError(error)));

  const namespace = options.namespace ?? process.env.OCC_NAMESPACE;
  if (namespace) {
    try {
      await namespaceId(sessionClient(server, session.token), namespace);
    } catch (error) {
      // Nothing is saved, as for an API key whose -n is wrong: the session is not kept either.
      await abandon(server, session.token);
      throw error;
    }
  }
  const name = flags.name ?? contextNameFor(server);
  const replaced = readConfig().contexts[name];
  saveContext(name, { server, apiKey: session.token, ...(namespace ? { namespace } : {}) }, { makeCurrent: true });
  // A session this context held before is of no use any more: end it rather than leave it valid.
  if (replaced && isCliSessionToken(replaced.apiKey) && replaced.apiKey !== session.token) await abandon(replaced.server, replaced.apiKey);
  process.stderr.write(`Signed in to ${server} as ${session.principalName} (session until ${session.expiresAt}); context ${name} is current (${configPath()}).\n`);
}

function registerLogout(program: Command): void {
  example(
    program
      .command('logout')
      .description(
        'Sign out of a context (--context, else the current one) and delete it: a single sign-on session (occ login --sso) is ended on the server; an API key is only forgotten here (it stays valid on the server).',
      ),
    'occ logout',
    'occ logout --context prod',
  ).action(
    action(async ({ options }) => {
      const config = readConfig();
      const name = options.context ?? process.env.OCC_CONTEXT ?? config.currentContext;
      if (!name) throw new CliError('No current context: nothing to sign out of (occ context list)', EXIT.USAGE);
      const context = config.contexts[name];
      if (!context) throw new CliError(`No context named ${name} (occ context list)`, EXIT.NOT_FOUND, 'NOT_FOUND');
      const session = isCliSessionToken(context.apiKey);
      let ended = false;
      if (session) {
        try {
          ended = await endCliSession(context.server, context.apiKey);
        } catch (error) {
          process.stderr.write(
            `The session could not be ended on ${context.server}; context ${name} is kept, so occ logout can try again (occ context delete ${name} forgets it here only).\n`,
          );
          throw error;
        }
      }
      // Read again: the file may have changed while the server answered.
      const now = readConfig();
      delete now.contexts[name];
      if (now.currentContext === name) delete now.currentContext;
      writeConfig(now);
      if (!session)
        note(`Context ${name} deleted. Its API key is only forgotten here: it stays valid on ${context.server} until it expires or is revoked (occ keys revoke).`, options);
      else if (ended) note(`Signed out of ${context.server}: the session has ended. Context ${name} deleted.`, options);
      else note(`The session had already ended on ${context.server}. Context ${name} deleted.`, options);
    }),
  );
}

/** The provider for people: one setting per line, the redirect URI to register among them. */
function printProvider(provider: SignInProvider, options: GlobalOptions): void {
  if (isDataFormat(options.output)) return printDocument(provider, options);
  if (options.output === 'name') throw noNames('the sign-in provider is a setting of the Installation, not a named resource');
  // -q: the one value a script needs from it (to register at the provider).
  if (options.quiet) return void process.stdout.write(`${provider.redirectUri}\n`);
  const rows: Array<[string, string]> = [
    ['Issuer', provider.issuer],
    ['Client ID', provider.clientId],
    ['Client secret', `Secret ${provider.clientSecretId}`],
    ['Public URL', provider.publicUrl],
    ['Redirect URI', provider.redirectUri],
    ['Scopes', provider.scopes.join(' ')],
    ['Groups claim', provider.groupsClaim],
    ['Refresh interval', `${provider.refreshIntervalSeconds}s`],
    ['Updated', provider.updatedAt],
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  process.stdout.write(rows.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}\n`).join(''));
  note(`Register ${provider.redirectUri} as the redirect URI at the provider (and ${provider.publicUrl}/ as the post-logout redirect URI).`, options);
}

interface ProviderFlags {
  issuer: string;
  clientId: string;
  clientSecret: string;
  clientSecretNamespace?: string;
  publicUrl: string;
  scopes?: string;
  groupsClaim?: string;
  refreshInterval?: number;
}

function refreshInterval(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 60 || seconds > 3600) throw new CliError('--refresh-interval is a whole number of seconds from 60 to 3600', EXIT.USAGE);
  return seconds;
}

/** The client secret's Secret: an id as typed, else a name in --client-secret-namespace (default: -n or the context's Namespace). */
async function clientSecretId(context: CommandContext, flags: ProviderFlags): Promise<string> {
  const client = context.connection.client;
  if (looksLikeId('secret', flags.clientSecret)) return flags.clientSecret;
  const ns = flags.clientSecretNamespace ? await namespaceId(client, flags.clientSecretNamespace) : await context.namespace();
  return secretId(client, ns, flags.clientSecret);
}

function registerProvider(signIn: Command): void {
  const group = signIn.command('provider').description('The OpenID provider people sign in with (Installation administration).');
  example(group.command('get').description('Show the provider, with the redirect URI to register there.'), 'occ sign-in provider get', 'occ sign-in provider get -o json').action(
    action(async ({ connection, options }) => {
      printProvider((await connection.client.call('getSignInProvider', {})).data, options);
    }),
  );
  example(
    group
      .command('set')
      .requiredOption('--issuer <url>', "the provider's issuer URL (https; http only on a loopback address)")
      .requiredOption('--client-id <id>', "OCC's client id at the provider")
      .requiredOption('--client-secret <secret>', 'the Secret holding the client secret (name or id); nothing else may use it')
      .addOption(new Option('--client-secret-namespace <namespace>', "the Secret's Namespace (default: -n or the context's)"))
      .requiredOption('--public-url <url>', 'OCC as browsers reach it: scheme, host and port, no path')
      .addOption(new Option('--scopes <scopes>', 'space-separated, must include openid (default: "openid profile email offline_access")'))
      .addOption(new Option('--groups-claim <claim>', 'the ID token claim sign-in rules match by default (default: groups, or what is set)'))
      .addOption(new Option('--refresh-interval <seconds>', "how often a session re-reads the person's groups, 60 to 3600 (default: 300)").argParser(refreshInterval))
      .description('Configure single sign-on: replaces the provider (options left out take their defaults). A new issuer or client id ends every single sign-on session.'),
    'occ sign-in provider set --issuer https://login.example.com --client-id occ --client-secret oidc-client-secret --public-url https://occ.example.com --scopes "openid profile email offline_access groups"',
    'printf %s "$CLIENT_SECRET" | occ secrets create oidc-client-secret -n default   # first: the client secret, as a Secret',
  ).action(
    action<ProviderFlags>(async (context, _args, flags) => {
      const scopes = flags.scopes?.split(/\s+/).filter(Boolean);
      const body = {
        issuer: flags.issuer,
        clientId: flags.clientId,
        clientSecretId: await clientSecretId(context, flags),
        publicUrl: flags.publicUrl,
        ...(scopes ? { scopes } : {}),
        ...(flags.groupsClaim ? { groupsClaim: flags.groupsClaim } : {}),
        ...(flags.refreshInterval ? { refreshIntervalSeconds: flags.refreshInterval } : {}),
      };
      printProvider((await context.connection.client.call('putSignInProvider', { body })).data, context.options);
    }),
  );
  example(group.command('delete').description('Turn single sign-on off: the provider is forgotten and every single sign-on session ends.'), 'occ sign-in provider delete').action(
    action(async ({ connection, options }) => {
      await connection.client.call('deleteSignInProvider', {});
      note('Single sign-on is off: the provider is forgotten and every single sign-on session has ended (API keys still sign in).', options);
    }),
  );
}

/** `occ logout`, and `occ sign-in provider`: single sign-on (`occ login --sso` is in contexts.ts). */
export function registerSignInCommands(program: Command): void {
  registerLogout(program);
  const signIn = program.command('sign-in').description('Single sign-on: the OpenID provider (occ sign-in provider); who it admits is occ sign-in-rules.');
  registerProvider(signIn);
}
