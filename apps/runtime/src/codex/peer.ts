import type { RuntimeManifest } from '@occ/contracts';
import { logEvent } from '../log.ts';
import type { PinnedToolchain } from '../toolchain.ts';
import type { AppServerClient } from './app-server-client.ts';
import { connectAppServer } from './app-server-connection.ts';
import { startListeningAppServer, type ListeningAppServer } from './app-server-listener.ts';
import { appServerCredential } from './credential.ts';
import { prepareCodexRevision, type CodexPrepared } from './prepare-codex.ts';
import { verifyCodexSignIn } from './sign-in.ts';
import { appServerStep } from './startup-failure.ts';
import type { StartupProgress } from '../progress.ts';

/** One startup of the dedicated app-server ("the peer"), prepared for the revision. */
export interface CodexPeer {
  /** Fresh per app-server start: the credential's third input, so each start has its own ([G-6], [G-8]). */
  peerStartupId: string;
  server: ListeningAppServer;
  /** The bearer the gateway must present; given to it only once `prepared` holds ([G-7]). */
  credential: string;
  prepared: CodexPrepared;
  /** Closes the runtime's connection and stops the app-server. */
  stop(): Promise<void>;
}

export interface CodexPeerInput {
  toolchain: PinnedToolchain;
  env: Record<string, string>;
  codexHome: string;
  workspace: string;
  transportSecret: string;
  peerStartupId: string;
  manifest: RuntimeManifest;
  marketplaces: readonly string[];
  assetsDir: string;
  openclawHome: string;
  installTimeoutMs: number;
  signal: AbortSignal;
  /** Values that must never reach the log (the codex_pat): replaced in the app-server's own lines. */
  redact: readonly string[];
  /** The Agent has a codex_pat: the app-server must be signed in with it before anything else. */
  signInRequired: boolean;
  /** Where the app-server listens (default: loopback, a port the OS picks). */
  listen?: { host: string; port: number };
  /** Where the preparation reports its steps (the runtime's status). */
  progress?: StartupProgress;
}

function redacted(line: string, values: readonly string[]): string {
  let out = line;
  for (const value of values) if (value.length > 0) out = out.split(value).join('[redacted]');
  // Cut after redacting: a cut first could leave the start of a value behind.
  return out.slice(0, 2048);
}

/**
 * Starts the app-server for one peer startup, connects with that startup's credential, and runs
 * the whole Codex preparation on it (prepare-codex.ts). On any failure the app-server is stopped
 * before the error goes on: nothing half-started outlives a failed startup.
 */
export async function startCodexPeer(input: CodexPeerInput): Promise<CodexPeer> {
  const credential = appServerCredential(input.transportSecret, input.manifest.revisionId, input.peerStartupId);
  const server = await appServerStep('the app-server start', () =>
    startListeningAppServer({
      codexEntry: input.toolchain.codexEntry,
      nodeBinary: input.toolchain.nodeBinary,
      env: input.env,
      cwd: input.workspace,
      credential,
      ...(input.listen ? { listen: input.listen } : {}),
      onStderrLine: (line) => logEvent('codex.app_server', { line: redacted(line, [...input.redact, credential]) }),
    }),
  );
  let client: AppServerClient | undefined;
  const stop = async () => {
    await client?.close();
    await server.stop();
  };
  try {
    client = await appServerStep('the app-server connection', () => connectAppServer(server.url, credential, { requestTimeoutMs: 30_000 }));
    logEvent('codex.peer.started', { pid: server.pid ?? null, url: server.url });
    if (input.signInRequired) await verifyCodexSignIn(client, { signal: input.signal });
    const prepared = await prepareCodexRevision({
      client,
      manifest: input.manifest,
      marketplaces: input.marketplaces,
      workspace: input.workspace,
      assetsDir: input.assetsDir,
      openclawHome: input.openclawHome,
      installTimeoutMs: input.installTimeoutMs,
      signal: input.signal,
      ...(input.progress ? { progress: input.progress } : {}),
    });
    // The runtime's own connection is done: the gateway is the peer's only client from here on.
    await client.close();
    return { peerStartupId: input.peerStartupId, server, credential, prepared, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
