import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, EXIT } from '../exit-codes.ts';

/** One server the CLI talks to, with the credential it signs in with and a default Namespace. */
export interface CliContext {
  server: string;
  /** An API key (`occ_…`), or a single sign-on session's token (`occs_…`, occ login --sso): both are sent as the bearer. */
  apiKey: string;
  namespace?: string;
}

export interface CliConfig {
  currentContext?: string;
  contexts: Record<string, CliContext>;
}

/** Whether a credential is a single sign-on session's token (occ login --sso) rather than an API key. */
export const isCliSessionToken = (credential: string): boolean => credential.startsWith('occs_');

/** `$OCC_CONFIG`, else `$XDG_CONFIG_HOME/occ/config.json`, else `~/.config/occ/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OCC_CONFIG) return env.OCC_CONFIG;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'occ', 'config.json');
}

export function readConfig(path = configPath()): CliConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: {} };
    throw new CliError(`Cannot read ${path}: ${(error as NodeJS.ErrnoException).code}`, EXIT.ERROR);
  }
  try {
    const parsed = JSON.parse(text) as CliConfig;
    if (typeof parsed !== 'object' || parsed === null || typeof parsed.contexts !== 'object') throw new Error('no contexts');
    return parsed;
  } catch {
    throw new CliError(`${path} is not an occ configuration file (JSON with "contexts"); fix or remove it`, EXIT.ERROR);
  }
}

/**
 * Writes the file atomically with mode 0600 in a 0700 directory: it holds API keys. A file that
 * already exists with wider permissions is narrowed.
 */
export function writeConfig(config: CliConfig, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** Adds or replaces a context; it becomes current when `makeCurrent` (or when none is). */
export function saveContext(name: string, context: CliContext, options: { makeCurrent: boolean }, path = configPath()): CliConfig {
  const config = readConfig(path);
  config.contexts[name] = context;
  if (options.makeCurrent || !config.currentContext || !config.contexts[config.currentContext]) config.currentContext = name;
  writeConfig(config, path);
  return config;
}

/** A context name from a server URL: host and port, e.g. `127.0.0.1-8080`. */
export function contextNameFor(server: string): string {
  const url = new URL(server);
  return `${url.hostname}${url.port ? `-${url.port}` : ''}`.replace(/[^A-Za-z0-9._-]/g, '-');
}
