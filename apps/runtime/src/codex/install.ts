import type { PluginWarning } from '@occ/contracts';
import type { StartupProgress } from '../progress.ts';
import { AppServerError, type AppServerClient } from './app-server-client.ts';
import type { PluginLocation } from './plugin-details.ts';
import { appServerFailure, malformedAnswer } from './startup-failure.ts';

export interface CodexInstallTarget {
  selectionKey: string;
  location: PluginLocation;
}

const AUTH_POLICIES = new Set(['ON_INSTALL', 'ON_USE']);

/** `PluginInstallResponse` (generated protocol types): `{authPolicy, appsNeedingAuth: AppSummary[]}`. */
function appsNeedingAuth(answer: unknown): string[] | null {
  if (typeof answer !== 'object' || answer === null) return null;
  const { authPolicy, appsNeedingAuth: apps } = answer as Record<string, unknown>;
  if (typeof authPolicy !== 'string' || !AUTH_POLICIES.has(authPolicy) || !Array.isArray(apps)) return null;
  const ids: string[] = [];
  for (const app of apps) {
    if (typeof app !== 'object' || app === null) return null;
    const { id, name } = app as Record<string, unknown>;
    if (typeof id !== 'string' || id === '' || typeof name !== 'string') return null;
    ids.push(id);
  }
  return ids;
}

/**
 * `plugin/install` for each row, one at a time ([X-4]). Only two outcomes become a plugin warning
 * ([W-1], [X-8]): the app-server answering that install with a JSON-RPC error
 * (`PLUGIN_INSTALL_FAILED`), and a successful install whose apps still need authentication
 * (`PLUGIN_AUTH_REQUIRED`). Anything else — transport loss, a timeout, a signal, a malformed
 * answer — fails the startup ([W-2]).
 */
export async function installCodexPlugins(
  client: Pick<AppServerClient, 'request'>,
  rows: readonly CodexInstallTarget[],
  options: { timeoutMs: number; signal: AbortSignal },
  progress: StartupProgress,
): Promise<PluginWarning[]> {
  const warnings: PluginWarning[] = [];
  for (const row of rows) {
    const started = Date.now();
    let answer: unknown;
    try {
      answer = await client.request('plugin/install', row.location, options);
    } catch (error) {
      if (!(error instanceof AppServerError) || error.kind !== 'rpc') throw appServerFailure(error, 'plugin installation');
      progress.installed(row.selectionKey, 'rejected', { rpcCode: error.rpcCode ?? null, ms: Date.now() - started });
      warnings.push({ pluginId: row.selectionKey, code: 'PLUGIN_INSTALL_FAILED' });
      continue;
    }
    const needingAuth = appsNeedingAuth(answer);
    if (needingAuth === null) throw malformedAnswer('plugin/install', 'authPolicy/appsNeedingAuth');
    progress.installed(row.selectionKey, 'done', { appsNeedingAuth: needingAuth.length, ms: Date.now() - started });
    if (needingAuth.length > 0) warnings.push({ pluginId: row.selectionKey, code: 'PLUGIN_AUTH_REQUIRED' });
  }
  return warnings;
}
