import { randomBytes } from 'node:crypto';
import type { RuntimeManifest } from '@occ/contracts';
import { logEvent } from '../log.ts';
import type { PinnedToolchain } from '../toolchain.ts';
import type { AppServerClient } from './app-server-client.ts';
import { connectAppServer } from './app-server-connection.ts';
import { startAppServerGate, type AppServerGate } from './app-server-gate.ts';
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
  /** Where the gateway reaches the app-server: only what a turn needs passes (app-server-gate-policy.ts). */
  gate: AppServerGate;
  /** The bearer the gateway must present at the gate; given to it only once `prepared` holds ([G-7]). */
  credential: string;
  prepared: CodexPrepared;
  /** Closes the gate and the runtime's connection, and stops the app-server. */
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
  /** Where the gateway reaches it, through the gate (default: loopback, a port the OS picks); the app-server itself listens on loopback only. */
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
 * Starts the app-server for one peer startup, connects with the runtime's own credential, and runs
 * the whole Codex preparation on it (prepare-codex.ts); then opens the gate the gateway reaches it
 * through, for that startup's credential. The app-server accepts only the runtime's inner
 * credential, drawn here and never given to anyone: the gateway's tools can read the gateway's
 * credential, so that one opens the gate and nothing else. On any failure the app-server is
 * stopped before the error goes on: nothing half-started outlives a failed startup.
 */
export async function startCodexPeer(input: CodexPeerInput): Promise<CodexPeer> {
  const credential = appServerCredential(input.transportSecret, input.manifest.revisionId, input.peerStartupId);
  const inner = randomBytes(32).toString('base64url');
  const server = await appServerStep('the app-server start', () =>
    startListeningAppServer({
      codexEntry: input.toolchain.codexEntry,
      nodeBinary: input.toolchain.nodeBinary,
      env: input.env,
      cwd: input.workspace,
      credential: inner,
      onStderrLine: (line) => logEvent('codex.app_server', { line: redacted(line, [...input.redact, credential, inner]) }),
    }),
  );
  let client: AppServerClient | undefined;
  let gate: AppServerGate | undefined;
  const stop = async () => {
    await gate?.close();
    await client?.close();
    await server.stop();
  };
  try {
    client = await appServerStep('the app-server connection', () => connectAppServer(server.url, inner, { requestTimeoutMs: 30_000 }));
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
    // The runtime's own connection is done: the gateway, through the gate, is the peer's only client from here on.
    await client.close();
    const listen = input.listen ?? { host: '127.0.0.1', port: 0 };
    // The directories a request may name: the Agent's state (its workspace within), its CODEX_HOME, its marketplaces.
    const context = { roots: [input.openclawHome, input.workspace, input.codexHome, ...input.marketplaces] };
    gate = await appServerStep('the app-server start', () => startAppServerGate({ listen, credential, upstream: { url: server.url, credential: inner }, context }));
    logEvent('codex.peer.gate', { url: gate.url });
    return { peerStartupId: input.peerStartupId, server, gate, credential, prepared, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
