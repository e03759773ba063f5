import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
// ssh2 is CommonJS: Node's ESM loader (occ up without tsx's help) sees only its default export.
import ssh2 from 'ssh2';

/** An unusable ssh driver setting: `occ up` / `occ worker` refuse to start, naming the variable. */
export class SshSettingError extends Error {
  override readonly name = 'SshSettingError';
}

/** The one SSH host this installation runs its Agents on (docs/compute-ssh.md, "Settings"). */
export interface SshComputeSettings {
  /** OCC_SSH_HOST: a host name or address, with `:port` (default 22). */
  host: string;
  port: number;
  /** OCC_SSH_USER: the account the runtimes run as; nothing of OCC runs as it but them. */
  user: string;
  /**
   * OCC_SSH_HOST_KEY: the host key the host must present, pinned (never trust on first use): its
   * public key line (`ssh-ed25519 AAAA…`, as in `/etc/ssh/ssh_host_ed25519_key.pub`) or its
   * `SHA256:…` fingerprint (`ssh-keygen -lf`). Held as the SHA-256 of the key's blob.
   */
  hostKeySha256: Buffer;
  /** OCC_SSH_PRIVATE_KEY_FILE: the client key, read once at start (never logged, never sent but to sshd's signature check). */
  privateKey: Buffer;
  /** OCC_SSH_WORKSPACE: where the host holds OCC's workspace (an OCC release after `npm ci`): the pinned runtime and its toolchain. */
  workspace: string;
  /** OCC_SSH_AGENTS_DIR: where each Agent's private directory lives on the host (default `.occ/agents` under the user's home). */
  agentsDir: string | null;
}

const HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})?$|^\[[0-9A-Fa-f:.]+\]$/;
const USER = /^[a-z_][a-z0-9_-]{0,31}$/;
const KEY_LINE = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521)\s+([A-Za-z0-9+/]+={0,2})(\s.*)?$/;
const FINGERPRINT = /^SHA256:([A-Za-z0-9+/]{43})=?$/;
/** A host path the driver puts in a shell command: absolute, no quotes, no shell specials, no `..`. */
const HOST_PATH = /^\/[A-Za-z0-9._/+-]*$/;

/** The ssh driver's settings from the environment; a bad value names its variable (none of them is a secret; the key file's content is never shown). */
export function sshComputeSettings(env: NodeJS.ProcessEnv): SshComputeSettings {
  const [host, port] = hostAndPort(required(env, 'OCC_SSH_HOST'));
  const user = required(env, 'OCC_SSH_USER');
  if (!USER.test(user)) throw new SshSettingError('OCC_SSH_USER must be a POSIX user name (lowercase letters, digits, _ and -).');
  const hostKeySha256 = pinnedKey(required(env, 'OCC_SSH_HOST_KEY'));
  const keyFile = required(env, 'OCC_SSH_PRIVATE_KEY_FILE');
  let privateKey: Buffer;
  try {
    privateKey = readFileSync(keyFile);
  } catch {
    throw new SshSettingError(`OCC_SSH_PRIVATE_KEY_FILE: ${keyFile} cannot be read.`);
  }
  const parsed = privateKey.includes('PRIVATE KEY-----') ? ssh2.utils.parseKey(privateKey) : null;
  if (parsed === null || parsed instanceof Error) {
    throw new SshSettingError(`OCC_SSH_PRIVATE_KEY_FILE: ${keyFile} holds no private key OCC can use (OpenSSH or PEM form, without a passphrase).`);
  }
  const workspace = hostPath('OCC_SSH_WORKSPACE', required(env, 'OCC_SSH_WORKSPACE'));
  const agentsDir = env.OCC_SSH_AGENTS_DIR ? hostPath('OCC_SSH_AGENTS_DIR', env.OCC_SSH_AGENTS_DIR) : null;
  return { host, port, user, hostKeySha256, privateKey, workspace, agentsDir };
}

/** The SHA-256 of a host key's blob, as OpenSSH's fingerprints hash it. */
export function hostKeyDigest(blob: Buffer): Buffer {
  return createHash('sha256').update(blob).digest();
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new SshSettingError(`${name} is required with OCC_COMPUTE_DRIVER=ssh (docs/compute-ssh.md).`);
  return value;
}

function hostAndPort(value: string): [string, number] {
  const match = /^(.*?)(?::([0-9]{1,5}))?$/.exec(value)!;
  const host = match[1]!;
  const port = match[2] === undefined ? 22 : Number(match[2]);
  if (!HOST.test(host)) throw new SshSettingError('OCC_SSH_HOST must be a host name or address, optionally with :port.');
  if (port < 1 || port > 65535) throw new SshSettingError('OCC_SSH_HOST must name a port from 1 to 65535.');
  return [host.replace(/^\[|\]$/g, ''), port];
}

function pinnedKey(value: string): Buffer {
  const line = KEY_LINE.exec(value);
  if (line) return hostKeyDigest(Buffer.from(line[2]!, 'base64'));
  const fingerprint = FINGERPRINT.exec(value);
  if (fingerprint) return Buffer.from(fingerprint[1]!, 'base64');
  throw new SshSettingError('OCC_SSH_HOST_KEY must be the host\'s public key line ("ssh-ed25519 AAAA…") or its SHA256: fingerprint.');
}

function hostPath(name: string, value: string): string {
  if (!isAbsolute(value) || !HOST_PATH.test(value) || value.split('/').includes('..')) {
    throw new SshSettingError(`${name} must be an absolute path on the host of letters, digits and . _ / + - (no ..).`);
  }
  return value.replace(/\/+$/, '') || '/';
}
