import { timingSafeEqual } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
// ssh2 is CommonJS: Node's ESM loader (occ up without tsx's help) sees only its default export.
import ssh2, { type ClientChannel } from 'ssh2';
import { hostKeyDigest, type SshHostSettings } from './settings.ts';

/** Why the host could not be used: closed codes with what to do, never the host's own words (docs/compute-ssh.md, "Failures"). */
export const SSH_FAILURES = {
  SSH_HOST_UNCONFIGURED:
    'The Agent\'s Namespace has no SSH host and the installation sets no default: save one with PUT /v1/namespaces/{namespace}/ssh-host, or set OCC_SSH_HOST (docs/compute-ssh.md, "Hosts").',
  SSH_HOST_INVALID: "The Namespace's saved SSH host can no longer be used: its private key's Secret holds no usable private key. Save the host again with a usable key.",
  SSH_HOST_UNREACHABLE: "The SSH host did not answer: check the host's address (the Namespace's SSH host, or OCC_SSH_HOST) and that its sshd runs and is reachable from OCC.",
  SSH_HOST_KEY_MISMATCH: 'The SSH host presented a host key other than the pinned one, so OCC did not log in. If the key was changed on purpose, pin the new one.',
  SSH_AUTH_REFUSED: "The SSH host refused OCC's client key for the host's user: add the key's public half to that user's authorized_keys.",
  SSH_COMMAND_TIMEOUT: 'A command on the SSH host did not finish in time.',
  SSH_HOST_DISK_FULL: "The SSH host's disk is full where the Agents' directories are (OCC_SSH_AGENTS_DIR): free space there.",
  RUNTIME_TOOLCHAIN_MISSING: 'OCC\'s runtime is not installed at OCC_SSH_WORKSPACE on the SSH host: install it there (docs/compute-ssh.md, "Host set-up").',
} as const;
export type SshFailureCode = keyof typeof SSH_FAILURES;

export class SshFailure extends Error {
  override readonly name = 'SshFailure';
  constructor(readonly code: SshFailureCode) {
    super(SSH_FAILURES[code]);
  }
}

export interface CommandResult {
  /** null when a signal ended the command (a connection that ended under it throws SSH_HOST_UNREACHABLE instead). */
  code: number | null;
  stdout: string;
  stderr: string;
}

const CONNECT_TIMEOUT_MS = 10_000;
const COMMAND_TIMEOUT_MS = 60_000;
/** What a command's output may grow to in OCC's memory (logs are cut on the host first). */
const MAX_OUTPUT_BYTES = 2 * 1024 * 1024;

/**
 * One SSH connection to a host, opened on first use and again after it drops:
 * the host key is checked against the pinned one before anything is sent [docs/compute-ssh.md],
 * commands run with their input on stdin (never in argv), and a host loopback port is read
 * through the connection (a direct-tcpip channel behind a listener on OCC's own 127.0.0.1), so
 * nothing of the host is ever exposed on its network.
 */
export class SshHost {
  private connection: Promise<ssh2.Client> | null = null;
  private readonly forwards = new Map<number, Promise<Server>>();

  constructor(private readonly settings: SshHostSettings) {}

  /** Runs `command` through the user's shell; `stdin` is written and closed. Throws SshFailure when the host cannot be used or the command outlives `timeoutMs`. */
  async run(command: string, options: { stdin?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<CommandResult> {
    const { signal } = options;
    signal?.throwIfAborted();
    const client = await this.client();
    return new Promise((resolve, reject) => {
      const started = (error: Error | undefined, stream: ClientChannel) => {
        if (error) {
          reject(new SshFailure('SSH_HOST_UNREACHABLE'));
          return;
        }
        const stdout: Buffer[] = [];
        const stderr: Buffer[] = [];
        let size = 0;
        const keep = (into: Buffer[]) => (chunk: Buffer) => {
          if (size >= MAX_OUTPUT_BYTES) return;
          size += chunk.length;
          into.push(chunk);
        };
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
        };
        const fail = (failure: unknown) => {
          done();
          stream.close();
          reject(failure);
        };
        const aborted = () => fail(signal?.reason);
        const timer = setTimeout(() => fail(new SshFailure('SSH_COMMAND_TIMEOUT')), options.timeoutMs ?? COMMAND_TIMEOUT_MS);
        signal?.addEventListener('abort', aborted, { once: true });
        stream.on('data', keep(stdout));
        stream.stderr.on('data', keep(stderr));
        let exited: number | null | undefined;
        stream.on('exit', (code: number | null) => {
          exited = typeof code === 'number' ? code : null;
        });
        stream.on('close', () => {
          done();
          // No exit status at all: the connection ended under the command (sshd or the host went away).
          if (exited === undefined) reject(new SshFailure('SSH_HOST_UNREACHABLE'));
          else resolve({ code: exited, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
        });
        stream.end(options.stdin ?? '');
      };
      try {
        client.exec(command, started);
      } catch {
        // ssh2 throws at once on a connection that stopped being writable before it closed.
        reject(new SshFailure('SSH_HOST_UNREACHABLE'));
      }
    });
  }

  /** A port on OCC's 127.0.0.1 that reaches `remotePort` on the host's loopback through the connection. */
  async localPortFor(remotePort: number): Promise<number> {
    let server = this.forwards.get(remotePort);
    if (!server) {
      server = this.listen(remotePort);
      this.forwards.set(remotePort, server);
      server.catch(() => this.forwards.delete(remotePort));
    }
    return ((await server).address() as AddressInfo).port;
  }

  /** Closes the local listener for `remotePort` (the runtime that served there stopped). */
  async release(remotePort: number): Promise<void> {
    const server = this.forwards.get(remotePort);
    this.forwards.delete(remotePort);
    const listening = await server?.catch(() => null);
    await new Promise<void>((resolve) => (listening ? listening.close(() => resolve()) : resolve()));
  }

  async close(): Promise<void> {
    await Promise.all([...this.forwards.keys()].map((port) => this.release(port)));
    const client = await this.connection?.catch(() => null);
    this.connection = null;
    client?.end();
  }

  private client(): Promise<ssh2.Client> {
    if (!this.connection) {
      // A connection that fails or later drops is forgotten: the next call connects again.
      const forget = () => {
        if (this.connection === connecting) this.connection = null;
      };
      const connecting = this.connect(forget);
      this.connection = connecting;
      connecting.catch(forget);
    }
    return this.connection;
  }

  private connect(onGone: () => void): Promise<ssh2.Client> {
    const { host, port, user, privateKey, hostKeySha256 } = this.settings;
    return new Promise((resolve, reject) => {
      const client = new ssh2.Client();
      let keyRefused = false;
      let ready = false;
      client.on('ready', () => {
        ready = true;
        resolve(client);
      });
      client.on('error', (error: Error & { level?: string }) => {
        if (ready) return onGone();
        if (keyRefused) return reject(new SshFailure('SSH_HOST_KEY_MISMATCH'));
        reject(new SshFailure(error.level === 'client-authentication' ? 'SSH_AUTH_REFUSED' : 'SSH_HOST_UNREACHABLE'));
      });
      client.on('close', () => {
        onGone();
        if (!ready) reject(new SshFailure(keyRefused ? 'SSH_HOST_KEY_MISMATCH' : 'SSH_HOST_UNREACHABLE'));
      });
      client.connect({
        host,
        port,
        username: user,
        privateKey,
        readyTimeout: CONNECT_TIMEOUT_MS,
        keepaliveInterval: 5_000,
        keepaliveCountMax: 3,
        hostVerifier: (key: Buffer) => {
          const digest = hostKeyDigest(key);
          const matches = digest.length === hostKeySha256.length && timingSafeEqual(digest, hostKeySha256);
          keyRefused = !matches;
          return matches;
        },
      });
    });
  }

  private listen(remotePort: number): Promise<Server> {
    const server = createServer((socket) => {
      socket.on('error', () => socket.destroy());
      this.client().then(
        (client) => {
          try {
            client.forwardOut('127.0.0.1', 0, '127.0.0.1', remotePort, (error, channel) => {
              if (error) return socket.destroy();
              channel.on('error', () => socket.destroy());
              channel.on('close', () => socket.destroy());
              socket.on('close', () => channel.close());
              socket.pipe(channel).pipe(socket);
            });
          } catch {
            // A connection that stopped being writable before it closed: this read fails, the next connects again.
            socket.destroy();
          }
        },
        () => socket.destroy(),
      );
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
  }
}
