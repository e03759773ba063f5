import { PluginCatalogEntrySchema, PluginCatalogPageSchema, type PluginCatalogEntry, type PluginCatalogPage } from '@occ/contracts';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { OccError, invalid } from '../errors.ts';
import type { DiscoveryOutcome, Metrics } from '../ports/metrics.ts';
import { PluginDiscoveryError, type PluginDiscovery, type PluginDiscoveryFailure } from '../ports/plugin-driver.ts';

/** What discovery asks of the driver: one page of a (searched) catalog, or one entry. */
export type CatalogQuery = { op: 'list'; q?: string; cursor?: string } | { op: 'details'; pluginId: string };
export type CatalogAnswer<Q extends CatalogQuery> = Q extends { op: 'list' } ? PluginCatalogPage : PluginCatalogEntry;

const isPage = TypeCompiler.Compile(PluginCatalogPageSchema);
const isEntry = TypeCompiler.Compile(PluginCatalogEntrySchema);

const MALFORMED_CREDENTIAL_MESSAGE = 'The credential is not a well-formed personal access token, so no plugin catalog was contacted.';

/** Shorter credentials are not searched for in answers: they would match ordinary text. */
const MIN_ECHO_CHECKED_LENGTH = 8;

/** The PluginDriver whose discovery is called, and where the call is counted (absent: nowhere). */
export interface DiscoveryTarget {
  driverId: string;
  discovery: PluginDiscovery;
  metrics: Metrics | undefined;
}

/**
 * A driver failure as an API error, with a fixed message: upstream text never passes.
 * `credentialPointer` names the body field that carried the credential (create-time only).
 */
function discoveryFailure(reason: PluginDiscoveryFailure, query: CatalogQuery, credentialPointer: string | undefined): OccError {
  switch (reason) {
    case 'credentials_rejected':
      return new OccError(
        'PLUGIN_DISCOVERY_CREDENTIALS_REJECTED',
        'The plugin catalog rejected the credential.',
        credentialPointer ? [{ path: credentialPointer, code: 'INVALID_VALUE' }] : undefined,
      );
    // Refused by its form before any request: the same code (clients branch on it), words that say so.
    case 'credential_malformed':
      return new OccError(
        'PLUGIN_DISCOVERY_CREDENTIALS_REJECTED',
        MALFORMED_CREDENTIAL_MESSAGE,
        credentialPointer ? [{ path: credentialPointer, code: 'INVALID_FORMAT' }] : undefined,
      );
    case 'rate_limited':
      return new OccError('PLUGIN_DISCOVERY_RATE_LIMITED', 'The plugin catalog is rate limiting requests; retry later.');
    case 'invalid_response':
      return new OccError('PLUGIN_DISCOVERY_INVALID_RESPONSE', 'The plugin catalog answered with a response OCC cannot use.');
    case 'not_found':
      return new OccError('NOT_FOUND', 'Plugin not found in the catalog.', query.op === 'details' ? [{ path: '/pluginId', code: 'INVALID_VALUE' }] : undefined);
    case 'invalid_cursor':
      return invalid('The cursor was not issued for this query and credential.', [{ path: '/cursor', code: 'INVALID_VALUE' }]);
    default:
      return new OccError('PLUGIN_DISCOVERY_UNAVAILABLE', 'The plugin catalog is unavailable; retry later.');
  }
}

function echoes(answer: unknown, credential: string | undefined): boolean {
  if (credential === undefined || credential.length < MIN_ECHO_CHECKED_LENGTH) return false;
  const text = JSON.stringify(answer);
  return text.includes(credential) || text.includes(JSON.stringify(credential).slice(1, -1));
}

/**
 * Calls the driver (no transaction is open: callers only hold plain reads) and returns its
 * answer only if it is exactly the contract's safe metadata: a driver bug must not leak a
 * field, and an answer that contains the credential is refused.
 */
export async function callDiscovery<Q extends CatalogQuery>(
  target: DiscoveryTarget,
  query: Q,
  credential: string | undefined,
  signal: AbortSignal,
  credentialPointer?: string,
): Promise<CatalogAnswer<Q>> {
  const { discovery } = target;
  const counted = (outcome: DiscoveryOutcome) => target.metrics?.discoveryCall({ driver: target.driverId, outcome });
  const withCredential = credential === undefined ? {} : { credential };
  let answer: unknown;
  try {
    answer =
      query.op === 'list'
        ? await discovery.listCatalog(
            { ...withCredential, ...(query.q !== undefined ? { q: query.q } : {}), ...(query.cursor !== undefined ? { cursor: query.cursor } : {}) },
            signal,
          )
        : await discovery.getCatalogPlugin({ ...withCredential, pluginId: query.pluginId }, signal);
  } catch (error) {
    const reason: PluginDiscoveryFailure = error instanceof PluginDiscoveryError ? error.reason : 'unavailable';
    counted(reason);
    throw discoveryFailure(reason, query, credentialPointer);
  }
  const valid = query.op === 'list' ? isPage.Check(answer) : isEntry.Check(answer);
  if (!valid || echoes(answer, credential)) {
    counted('invalid_response');
    throw discoveryFailure('invalid_response', query, credentialPointer);
  }
  counted('ok');
  return answer as CatalogAnswer<Q>;
}
