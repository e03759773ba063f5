import WebSocket from 'ws';
import { AppServerError, handshake, rpcSession, type AppServerClient, type AppServerOptions } from './app-server-client.ts';

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A JSON-RPC connection to a listening app-server (`ws://127.0.0.1:<port>`), authenticated by
 * `Authorization: Bearer <credential>`, and its `initialize` handshake. A refused credential
 * (HTTP 401), a closed socket or an oversized frame fails what is pending like a stdio exit would.
 * `exited` resolves when the connection closes; `close` closes it (the app-server keeps running).
 */
export async function connectAppServer(
  url: string,
  credential: string,
  options: Pick<AppServerOptions, 'requestTimeoutMs' | 'clientInfo' | 'onNotification'> = {},
): Promise<AppServerClient> {
  const socket = new WebSocket(url, {
    headers: { Authorization: `Bearer ${credential}` },
    maxPayload: MAX_MESSAGE_BYTES,
    handshakeTimeout: CONNECT_TIMEOUT_MS,
    followRedirects: false,
  });
  const session = rpcSession(
    {
      send: (text) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(text);
      },
      onBroken: () => socket.terminate(),
    },
    options,
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    socket.once('close', (code) => {
      session.fail('exit');
      resolve({ code, signal: null });
    });
  });
  // The protocol is text frames of JSON; a binary frame is as malformed as a non-JSON line.
  socket.on('message', (data, isBinary) => session.receive(isBinary ? '\u0000' : data.toString()));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request, response) => {
      socket.terminate();
      reject(new AppServerError('rpc', 'connect', response.statusCode));
    });
    socket.once('error', () => reject(new AppServerError('exit', 'connect')));
  });
  // Errors after the opening surface as 'close'; without a listener they would be thrown.
  socket.on('error', () => {});
  const close = async () => {
    session.fail('aborted');
    if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
    await exited;
  };
  try {
    await opened;
    const initialized = await handshake(session, options.clientInfo);
    return { pid: undefined, initialized, request: session.request, exited, close };
  } catch (error) {
    await close();
    throw error;
  }
}
