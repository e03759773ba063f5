import { StartupStatusSchema, type CodexPeer, type StartupStatus } from '@occ/contracts';
import type { CodexBridgeConfig, CodexRuntimeArtifact } from '@occ/policy';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ListenAddress } from '../environment.ts';
import { StartupFailure } from '../failure.ts';
import { logEvent } from '../log.ts';

// The two halves of a Codex revision on the container targets (docs/architecture.md, "Codex
// runtime roles"): the app-server runtime publishes its peer status on its status server; the
// gateway runtime reads it there with the revision's status token, and trusts it only for its own
// revision, a ready phase and a bridge that excludes what the peer did not install.

const isStatus = TypeCompiler.Compile(StartupStatusSchema);
const POLL_MS = 500;
const READ_TIMEOUT_MS = 5_000;
/** The skills bundle may be up to 16 MiB (skills-bundle.ts). */
const ASSETS_TIMEOUT_MS = 30_000;
/** Consecutive unanswered reads before a serving peer counts as gone (one lost read is not a restart). */
const UNREACHABLE_READS = 3;
/**
 * And at least this long since its last answer: on a loaded host a busy peer misses reads of
 * READ_TIMEOUT_MS for a while (seen in CI as a needless restart of the whole pod); a restarted peer
 * is seen at once by its new startup id, so the grace delays only a peer that stays silent. A
 * peer that is gone (GONE_CODES) needs no grace: a busy peer's kernel still accepts connections.
 */
const UNREACHABLE_GRACE_MS = 30_000;

/**
 * Connection errors that say nothing listens at the peer's address any more: refused (its process
 * is gone), or no host there (a removed container's address). A busy peer causes neither.
 */
const GONE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH']);

/** What one read got: an answer (its JSON, or null for a non-200), or no answer at all. */
type PeerRead = { answered: true; body: unknown } | { answered: false; gone: boolean };

/** A prepared peer startup as the gateway uses it. */
export interface ReadyPeer {
  /** The app-server runtime's startup id: the credential's third input ([G-6]). */
  startupId: string;
  /** Where the app-server listens: the peer's address, the port it published. */
  appServer: { host: string; port: number };
  plugins: StartupStatus['plugins'];
  failures: StartupStatus['failures'];
  bridge: CodexBridgeConfig;
}

/** What the app-server runtime publishes once its peer startup is prepared. */
export function publishedPeer(appServerPort: number, artifact: CodexRuntimeArtifact): CodexPeer {
  return { appServerPort, codexPlugins: structuredClone(artifact.bridge.plugins.entries.codex.config.codexPlugins) };
}

/** One authenticated GET on the peer's status server. */
async function getFromPeer(peer: ListenAddress, token: string, path: string, signal: AbortSignal, timeoutMs: number): Promise<PeerRead> {
  try {
    const response = await fetch(`http://${peer.host}:${peer.port}${path}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    return { answered: true, body: response.status === 200 ? await response.json() : null };
  } catch (error) {
    return { answered: false, gone: GONE_CODES.has(String((error as { cause?: { code?: unknown } }).cause?.code)) };
  }
}

/** One read of the peer's status: its status when it answers with a well-formed one, else null or why it did not answer. */
async function readPeerStatus(peer: ListenAddress, token: string, signal: AbortSignal): Promise<StartupStatus | null | 'silent' | 'gone'> {
  const read = await getFromPeer(peer, token, '/startup-status', signal, READ_TIMEOUT_MS);
  if (!read.answered) return read.gone ? 'gone' : 'silent';
  return isStatus.Check(read.body) ? read.body : null;
}

/** The peer's plugin skills bundle (`GET /runtime-assets`, skills-bundle.ts); null when it has none or does not answer. */
export async function readPeerAssets(peer: ListenAddress, token: string, signal: AbortSignal): Promise<unknown> {
  const read = await getFromPeer(peer, token, '/runtime-assets', signal, ASSETS_TIMEOUT_MS);
  return read.answered ? read.body : null;
}

/**
 * The peer as the gateway may use it, or null while it is not (yet) ready. A ready peer of another
 * revision, or one whose bridge enables a selection the revision does not enable or the peer did
 * not install, is refused: a gateway is never handed a bridge wider than the revision ([G-7]).
 */
export function usablePeer(status: StartupStatus | null, peer: ListenAddress, revisionId: string, enabledSelections: ReadonlySet<string>): ReadyPeer | null {
  if (status === null || status.phase !== 'ready' || status.codexPeer === undefined) return null;
  if (status.revisionId !== revisionId) throw new StartupFailure('CODEX_APP_SERVER_FAILED', 'The Codex app-server runtime serves another revision.');
  const installed = new Set(status.plugins);
  const { codexPlugins } = status.codexPeer;
  const widened = Object.keys(codexPlugins.plugins).filter((nativeId) => {
    const key = `codex:${nativeId}`;
    return codexPlugins.plugins[nativeId]!.enabled && !(enabledSelections.has(key) && installed.has(key));
  });
  if (widened.length > 0) {
    logEvent('codex.peer.refused', { widened });
    throw new StartupFailure('CODEX_APP_SERVER_FAILED', 'The Codex app-server runtime published a plugin bridge the revision does not admit.');
  }
  // The app-server listens on the peer's address (its container's, or loopback in one pod).
  return {
    startupId: status.startupId,
    appServer: { host: peer.host, port: status.codexPeer.appServerPort },
    plugins: status.plugins,
    failures: status.failures,
    bridge: { plugins: { entries: { codex: { enabled: true, config: { codexPlugins: structuredClone(codexPlugins) } } } } },
  };
}

export interface PeerWatch {
  peer: ListenAddress;
  token: string;
  revisionId: string;
  enabledSelections: ReadonlySet<string>;
  signal: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
  /** The clock the unreachable grace is measured on (tests pass their own). */
  now?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until the peer is ready with a startup other than `previous` ([G-10]: until then the gateway stays unready); null once aborted. */
export async function awaitPeer(watch: PeerWatch, previous: string | null): Promise<ReadyPeer | null> {
  const sleep = watch.sleep ?? defaultSleep;
  while (!watch.signal.aborted) {
    const read = await readPeerStatus(watch.peer, watch.token, watch.signal);
    const ready = usablePeer(typeof read === 'string' ? null : read, watch.peer, watch.revisionId, watch.enabledSelections);
    if (ready !== null && ready.startupId !== previous) return ready;
    await sleep(POLL_MS);
  }
  return null;
}

/**
 * Resolves once the peer `startupId` stops serving ([G-9]): `changed` (another startup, or not
 * ready) or `unreachable` (unanswered reads in a row, gone or for a while: the same startup may
 * come back, so the caller must accept it again); never once aborted.
 */
export async function peerChanged(watch: PeerWatch, startupId: string): Promise<'changed' | 'unreachable' | 'aborted'> {
  const sleep = watch.sleep ?? defaultSleep;
  const now = watch.now ?? Date.now;
  let unanswered = 0;
  let gone = 0;
  let lastAnswer = now();
  while (!watch.signal.aborted) {
    await sleep(POLL_MS);
    const read = await readPeerStatus(watch.peer, watch.token, watch.signal);
    if (watch.signal.aborted) break;
    const status = typeof read === 'string' ? null : read;
    gone = read === 'gone' ? gone + 1 : 0;
    if (status === null) unanswered++;
    else {
      unanswered = 0;
      lastAnswer = now();
    }
    if (gone >= UNREACHABLE_READS) return 'unreachable';
    if (unanswered >= UNREACHABLE_READS && now() - lastAnswer >= UNREACHABLE_GRACE_MS) return 'unreachable';
    if (status !== null && (status.startupId !== startupId || status.phase !== 'ready')) return 'changed';
  }
  return 'aborted';
}
