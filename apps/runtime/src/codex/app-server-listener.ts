import { spawn } from 'node:child_process';
import { childPids, processLive, processName } from '@occ/host-io/process-group';
import { AppServerError, processExit, type AppServerOptions } from './app-server-client.ts';
import { credentialDigest } from './credential.ts';

/** The dedicated app-server of one startup, listening on loopback for bearers of its credential. */
export interface ListeningAppServer {
  pid: number | undefined;
  /** `ws://<address>:<port>`: the address it printed once bound. */
  url: string;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (the Node wrapper forwards it to the binary), SIGKILL after five seconds; resolves once both are gone. */
  stop(): Promise<void>;
}

const LISTENING = /listening on: ws:\/\/[0-9.]+:(\d{1,5})\b/;
const LISTEN_DEADLINE_MS = 30_000;

/**
 * Starts `codex app-server --listen ws://127.0.0.1:0` ([S-3]: its own process, separate from the
 * gateway): the OS picks the port, so no other process can have taken it, and the app-server
 * prints the address it bound. A runtime in the `app-server` role names another address (its
 * container's, so the gateway container can reach it) and a fixed port. `--ws-auth capability-token` with the SHA-256 of the credential
 * makes it refuse (HTTP 401) every connection without that bearer; the credential itself never
 * appears in argv.
 *
 * It is not detached: it stays in the runtime's process group, so a driver that kills that group
 * (the runtime killed hard) takes the app-server with it. The Node wrapper forwards SIGTERM to the
 * platform binary; should the wrapper itself die, the binary it leaves behind is killed too.
 */
export async function startListeningAppServer(
  options: Omit<AppServerOptions, 'requestTimeoutMs' | 'clientInfo' | 'onNotification'> & { credential: string; listen?: { host: string; port: number } },
): Promise<ListeningAppServer> {
  const listen = options.listen ?? { host: '127.0.0.1', port: 0 };
  const args = [
    options.codexEntry,
    'app-server',
    '--listen',
    `ws://${listen.host}:${listen.port}`,
    '--ws-auth',
    'capability-token',
    '--ws-token-sha256',
    credentialDigest(options.credential),
  ];
  const child = spawn(options.nodeBinary, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let bound: (port: number) => void;
  const port = new Promise<number>((resolve) => (bound = resolve));
  let binaries: number[] = [];
  // Resolves once nothing of the app-server is left: a binary the wrapper left behind is killed and waited for.
  const exited = processExit(child, () => {}).then(async (result) => {
    const left = binaries.filter((pid) => processName(pid) === 'codex');
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    const deadline = Date.now() + 2_000;
    while (left.some(processLive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return result;
  });
  let rest = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!.slice(-4096);
    for (const line of lines) {
      const found = LISTENING.exec(line);
      if (found) bound(Number(found[1]));
      options.onStderrLine?.(line);
    }
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    port,
    exited.then(() => 'exited' as const),
    new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), LISTEN_DEADLINE_MS))),
  ]);
  clearTimeout(timer);
  if (typeof outcome !== 'number') {
    await stop();
    throw new AppServerError(outcome === 'exited' ? 'exit' : 'timeout', 'listen');
  }
  // The platform binary the wrapper started (it printed the address, so it exists by now).
  binaries = childPids(child.pid);
  // The runtime's own connection goes over loopback even when the app-server listens on all addresses.
  const host = listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host;
  return { pid: child.pid, url: `ws://${host}:${outcome}`, port: outcome, exited, stop };
}
