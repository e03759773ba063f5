import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { processGroupAlive, signalProcessGroup } from '@occ/host-io/process-group';

/** Why a request to the app-server did not get its answer. */
export type AppServerErrorKind =
  /** The app-server answered with a JSON-RPC error (`rpcCode`). */
  | 'rpc'
  /** No answer within the request's timeout. */
  | 'timeout'
  /** The app-server exited (or could not be started) before answering. */
  | 'exit'
  /** It wrote something that is not a JSON-RPC message: the connection is unusable. */
  | 'malformed'
  /** The caller's signal aborted the request, or the client was closed. */
  | 'aborted';

/**
 * A failed app-server request. The message is a fixed sentence naming the method, never the
 * app-server's own text (which may quote configuration); `rpcMessage` keeps that for the log.
 */
export class AppServerError extends Error {
  constructor(
    readonly kind: AppServerErrorKind,
    readonly method: string,
    readonly rpcCode?: number,
    readonly rpcMessage?: string,
  ) {
    super(`codex app-server ${method}: ${kind === 'rpc' ? `error ${rpcCode}` : kind}`);
    this.name = 'AppServerError';
  }
}

export interface AppServerNotification {
  method: string;
  params: unknown;
}

export interface AppServerOptions {
  /** The Codex CLI entry (`PinnedToolchain.codexEntry`), run by `nodeBinary`. */
  codexEntry: string;
  nodeBinary: string;
  /** The whole environment of the app-server (CODEX_HOME included): nothing is inherited. */
  env: Record<string, string>;
  cwd: string;
  /** Default deadline of one request (ms). */
  requestTimeoutMs?: number;
  /** Who we are, in `initialize`. */
  clientInfo?: { name: string; title: string; version: string };
  /** Each server notification, as it arrives. */
  onNotification?: (notification: AppServerNotification) => void;
  /** Each stderr line (the app-server logs there); for the runtime log only. */
  onStderrLine?: (line: string) => void;
}

export interface AppServerClient {
  readonly pid: number | undefined;
  /** What `initialize` answered. */
  readonly initialized: unknown;
  request<T = unknown>(method: string, params?: unknown, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<T>;
  /** Resolves once the app-server has exited (on its own or after `close`). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the app-server (its whole process group, waited for) and fails what is still pending. */
  close(): Promise<void>;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: AppServerError) => void;
  timer: NodeJS.Timeout;
  signal?: AbortSignal;
  onAbort?: () => void;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** Calls `onLine` for each newline-terminated line of `stream`; a line longer than `maxChars` calls `onOverflow` and is dropped. */
function eachLine(stream: NodeJS.ReadableStream, maxChars: number, onLine: (line: string) => void, onOverflow: () => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) onLine(line);
    if (rest.length > maxChars) {
      rest = '';
      onOverflow();
    }
  });
}

/** One JSON-RPC conversation with an app-server, whatever carries its messages (stdio lines, WebSocket frames). */
export interface RpcSession {
  request<T = unknown>(method: string, params?: unknown, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<T>;
  /** One incoming message's text. */
  receive(text: string): void;
  /** The carrier is gone or unusable: every pending request fails with `kind`, later ones at once. */
  fail(kind: AppServerErrorKind): void;
  /** Sends a notification (no answer expected). */
  notify(method: string): void;
}

/**
 * The JSON-RPC rules both transports share: requests answered by id with a deadline and an
 * optional abort signal; server notifications to `onNotification`; a request the server makes of
 * us is refused (we grant nothing); a message that is not a JSON object breaks the session
 * (`onBroken` stops the carrier).
 */
export function rpcSession(
  carrier: { send(text: string): void; onBroken(): void },
  options: { requestTimeoutMs?: number; onNotification?: (notification: AppServerNotification) => void },
): RpcSession {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let broken: AppServerErrorKind | undefined;
  const settle = (id: number) => {
    const entry = pending.get(id);
    if (!entry) return undefined;
    pending.delete(id);
    clearTimeout(entry.timer);
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort);
    return entry;
  };
  const fail = (kind: AppServerErrorKind) => {
    broken ??= kind;
    for (const id of [...pending.keys()]) {
      const entry = settle(id)!;
      entry.reject(new AppServerError(kind, entry.method));
    }
  };
  const send = (message: object) => carrier.send(JSON.stringify(message));
  const onMessage = (message: Record<string, unknown>) => {
    const { id, method } = message;
    if (typeof method === 'string' && id !== undefined) {
      send({ id, error: { code: -32601, message: 'The OCC runtime grants no client requests.' } });
      return;
    }
    if (typeof method === 'string') {
      options.onNotification?.({ method, params: message.params });
      return;
    }
    if (typeof id !== 'number') return;
    const entry = settle(id);
    if (!entry) return;
    const error = message.error as { code?: unknown; message?: unknown } | undefined;
    if (error)
      entry.reject(new AppServerError('rpc', entry.method, typeof error.code === 'number' ? error.code : undefined, typeof error.message === 'string' ? error.message : undefined));
    else entry.resolve(message.result);
  };
  return {
    fail,
    notify: (method) => send({ method }),
    receive(text) {
      if (broken === 'malformed' || text.trim() === '') return;
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        message = undefined;
      }
      if (typeof message !== 'object' || message === null || Array.isArray(message)) {
        fail('malformed');
        carrier.onBroken();
        return;
      }
      onMessage(message as Record<string, unknown>);
    },
    request: <T>(method: string, params?: unknown, requestOptions: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        if (broken) return reject(new AppServerError(broken, method));
        if (requestOptions.signal?.aborted) return reject(new AppServerError('aborted', method));
        const id = ++nextId;
        const timeoutMs = requestOptions.timeoutMs ?? options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
        const entry: Pending = {
          method,
          resolve: resolve as (value: unknown) => void,
          reject,
          timer: setTimeout(() => settle(id)?.reject(new AppServerError('timeout', method)), timeoutMs),
        };
        if (requestOptions.signal) {
          entry.signal = requestOptions.signal;
          entry.onAbort = () => settle(id)?.reject(new AppServerError('aborted', method));
          requestOptions.signal.addEventListener('abort', entry.onAbort, { once: true });
        }
        pending.set(id, entry);
        send(params === undefined ? { id, method } : { id, method, params });
      }),
  };
}

/** `initialize` then `initialized`: what every connection does first. */
export async function handshake(session: RpcSession, clientInfo: AppServerOptions['clientInfo']): Promise<unknown> {
  // The experimental API carries what the runtime needs: app fields in plugin details, external (in-memory) ChatGPT login.
  const initialized = await session.request('initialize', {
    clientInfo: clientInfo ?? { name: 'occ-runtime', title: 'OCC runtime', version: '0.1.0' },
    capabilities: { experimentalApi: true },
  });
  session.notify('initialized');
  return initialized;
}

/**
 * Starts `codex app-server` on stdio (newline-delimited JSON-RPC messages) and completes its
 * `initialize` handshake. Requests are answered by id; server notifications go to
 * `onNotification`; a request the server makes of us is refused (we grant nothing).
 */
export async function startAppServer(options: AppServerOptions): Promise<AppServerClient> {
  const child: ChildProcessWithoutNullStreams = spawn(options.nodeBinary, [options.codexEntry, 'app-server', '--listen', 'stdio://'], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const session = rpcSession(
    {
      send: (text) => {
        if (child.stdin.writable) child.stdin.write(`${text}\n`);
      },
      onBroken: () => signalProcessGroup(child.pid, 'SIGKILL'),
    },
    options,
  );
  const exited = processExit(child, () => session.fail('exit'));
  // A closed pipe after exit is not our error to throw.
  child.stdin.on('error', () => session.fail('exit'));
  eachLine(
    child.stdout,
    MAX_LINE_CHARS,
    (line) => session.receive(line),
    () => {
      session.fail('malformed');
      signalProcessGroup(child.pid, 'SIGKILL');
    },
  );
  // A stderr line too long to keep is dropped: it is log material only.
  eachLine(
    child.stderr,
    64 * 1024,
    (line) => options.onStderrLine?.(line),
    () => {},
  );
  const close = async () => {
    session.fail('aborted');
    await stopProcessGroup(child.pid, exited);
  };
  try {
    const initialized = await handshake(session, options.clientInfo);
    return { pid: child.pid, initialized, request: session.request, exited, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Resolves with the child's exit (or a spawn failure), after calling `onGone`. */
export function processExit(child: ChildProcess, onGone: () => void): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      onGone();
      resolve({ code, signal });
    });
    child.once('error', () => {
      onGone();
      resolve({ code: null, signal: null });
    });
  });
}

/**
 * Resolves once no process of the group is left (SIGTERM, then SIGKILL after five seconds; an
 * unreaped zombie counts as left, so a host whose init does not reap waits the five seconds).
 * The whole group, even when the Node wrapper is already gone: the platform binary it started
 * outlives it for a while.
 */
async function stopProcessGroup(pid: number | undefined, exited: Promise<unknown>): Promise<void> {
  signalProcessGroup(pid, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (processGroupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  signalProcessGroup(pid, 'SIGKILL');
  await exited;
}
