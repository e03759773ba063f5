import { createApiClient, type ApiClient } from '@occ/contracts/client';
import { CliError, EXIT } from '../exit-codes.ts';
import type { OutputFormat } from '../output/output-format.ts';
import { configPath, isCliSessionToken, readConfig, type CliContext } from './config-file.ts';

/** The global flags every command accepts (see program.ts). */
export interface GlobalOptions {
  context?: string;
  server?: string;
  namespace?: string;
  output: OutputFormat;
  quiet?: boolean;
}

export type { OutputFormat } from '../output/output-format.ts';

export interface Connection {
  client: ApiClient;
  /** Where the Namespace default comes from when `-n` is absent. */
  defaultNamespace: string | undefined;
  contextName: string | undefined;
  /** Where the API key comes from (`occ whoami` says which): OCC_API_KEY, the context, or nowhere. */
  apiKeyFrom: 'OCC_API_KEY' | 'context' | null;
  /** Whether that credential is a single sign-on session's token (`occ login --sso`) rather than an API key. */
  sessionToken: boolean;
}

export const USER_AGENT = 'occ-cli';

/**
 * Which server and key a command uses: `--server`/`OCC_SERVER` and `OCC_API_KEY` override the
 * context (`--context`, `OCC_CONTEXT`, else the current one). A context's key is only ever sent
 * to that context's own server, never to a server named by a flag.
 */
export function connect(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Connection {
  const config = readConfig(configPath(env));
  const contextName = options.context ?? env.OCC_CONTEXT ?? config.currentContext;
  const context: CliContext | undefined = contextName ? config.contexts[contextName] : undefined;
  if ((options.context || env.OCC_CONTEXT) && !context) throw new CliError(`No context named ${contextName} (occ context list)`, EXIT.USAGE);
  const server = options.server ?? env.OCC_SERVER ?? context?.server;
  if (!server) throw new CliError('No server: run `occ login --server URL`, or set OCC_SERVER and OCC_API_KEY', EXIT.FORBIDDEN);
  let normalized: string;
  try {
    if (!/^https?:$/.test(new URL(server).protocol)) throw new Error('not http');
    normalized = server.replace(/\/+$/, '');
  } catch {
    throw new CliError(`--server must be a URL such as http://127.0.0.1:8080 (got ${JSON.stringify(server.slice(0, 100))})`, EXIT.USAGE);
  }
  const contextKey = context && sameServer(context.server, normalized) ? context.apiKey : undefined;
  const apiKey = env.OCC_API_KEY || contextKey;
  return {
    client: createApiClient({ server: normalized, ...(apiKey ? { apiKey } : {}), fetch: (input, init) => fetch(input, init), userAgent: USER_AGENT }),
    defaultNamespace: env.OCC_NAMESPACE || (contextKey ? context?.namespace : undefined),
    contextName: contextKey ? contextName : undefined,
    apiKeyFrom: env.OCC_API_KEY ? 'OCC_API_KEY' : contextKey ? 'context' : null,
    sessionToken: apiKey !== undefined && isCliSessionToken(apiKey),
  };
}

function sameServer(a: string, b: string): boolean {
  try {
    return new URL(a).href.replace(/\/+$/, '') === new URL(b).href.replace(/\/+$/, '');
  } catch {
    return false;
  }
}
