// The real pinned `codex app-server` started as an Agent's runtime starts its own (apps/runtime
// src/main.ts and codex/peer.ts): a private CODEX_HOME (prepareCodexHome), the environment built
// for it (codexProcessEnvironment: the codex_pat as CODEX_ACCESS_TOKEN, the CA as
// CODEX_CA_CERTIFICATE), listening on loopback behind a capability token, one connection to it,
// and the sign-in check. Shared by the runtime tests on the real app-server (codex-sign-in,
// codex-prepare-hosted-real) and bench/codex-turn.ts.
import { appendFileSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { AppServerClient, AppServerNotification } from '../apps/runtime/src/codex/app-server-client.ts';
import { connectAppServer } from '../apps/runtime/src/codex/app-server-connection.ts';
import { codexProcessEnvironment } from '../apps/runtime/src/codex/app-server-env.ts';
import { startListeningAppServer, type ListeningAppServer } from '../apps/runtime/src/codex/app-server-listener.ts';
import { appServerCredential } from '../apps/runtime/src/codex/credential.ts';
import { prepareCodexHome } from '../apps/runtime/src/codex/home.ts';
import { verifyCodexSignIn } from '../apps/runtime/src/codex/sign-in.ts';
import { pinnedToolchain } from '../apps/runtime/src/toolchain.ts';

export interface RealCodexAppServerOptions {
  /** A fresh directory: CODEX_HOME, HOME and the workspace are made under it. */
  root: string;
  /** The codex_pat it signs in with at `authBaseUrl`. */
  accessToken: string;
  /** The hosted service's bases, as the runtime gets them (Codex's chatgpt_base_url and auth API base). */
  chatgptBaseUrl: string;
  authBaseUrl: string;
  /** Codex's `openai_base_url` (the Installation's model endpoint); none: Codex's default. */
  modelBaseUrl?: string | null;
  /** The runtime's network variables (NODE_EXTRA_CA_CERTS among them: Codex gets it as CODEX_CA_CERTIFICATE). */
  network: Record<string, string>;
  /** Appended to config.toml before the app-server starts (a user layer of the test's own). */
  userLayer?: string;
  onNotification?: (notification: AppServerNotification) => void;
  requestTimeoutMs?: number;
  /** False: return before the sign-in check (a test that runs it itself). */
  checkSignIn?: boolean;
}

export interface RealCodexAppServer {
  codexHome: string;
  workspace: string;
  client: AppServerClient;
  server: ListeningAppServer;
  /** Closes the connection and stops the app-server. */
  stop(): Promise<void>;
}

/** Starts it signed in with `accessToken`; a sign-in that does not happen within 20 s fails (CODEX_SIGN_IN_FAILED) unless `checkSignIn` is false. */
export async function startRealCodexAppServer(options: RealCodexAppServerOptions): Promise<RealCodexAppServer> {
  const codexHome = join(options.root, 'codex-home');
  const workspace = join(options.root, 'workspace');
  const home = join(options.root, 'home');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  prepareCodexHome(codexHome, { pluginsEnabled: true, chatgptBaseUrl: options.chatgptBaseUrl, modelBaseUrl: options.modelBaseUrl ?? null });
  if (options.userLayer !== undefined) appendFileSync(join(codexHome, 'config.toml'), `\n${options.userLayer}\n`);
  const toolchain = pinnedToolchain();
  const env = codexProcessEnvironment({
    toolchain,
    path: process.env.PATH ?? '',
    home,
    lang: 'C.UTF-8',
    codexHome,
    accessToken: options.accessToken,
    network: options.network,
    chatgptBaseUrl: options.chatgptBaseUrl,
    authBaseUrl: options.authBaseUrl,
  });
  const credential = appServerCredential(randomBytes(32).toString('base64url'), 'rev_real_app_server', randomBytes(8).toString('hex'));
  const server = await startListeningAppServer({ codexEntry: toolchain.codexEntry, nodeBinary: toolchain.nodeBinary, env, cwd: workspace, credential });
  let client: AppServerClient | undefined;
  const stop = async () => {
    await client?.close();
    await server.stop();
  };
  try {
    client = await connectAppServer(server.url, credential, {
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      ...(options.onNotification ? { onNotification: options.onNotification } : {}),
    });
    if (options.checkSignIn !== false) await verifyCodexSignIn(client, { signal: new AbortController().signal, deadlineMs: 20_000, intervalMs: 100 });
    return { codexHome, workspace, client, server, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
