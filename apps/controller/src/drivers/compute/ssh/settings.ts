import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
// ssh2 is CommonJS: Node's ESM loader (occ up without tsx's help) sees only its default export.
import ssh2 from 'ssh2';
import { ComputeValidationError } from '../../../core/ports/compute-driver.ts';
import type { NamespaceSshHost } from '../../../core/ports/compute-hosts.ts';

/** An unusable ssh driver setting: `occ up` / `occ worker` refuse to start, naming the variable. */
export class SshSettingError extends Error {
  override readonly name = 'SshSettingError';
}

/** One SSH host: a Namespace's (PUT …/ssh-host) or the installation's default (OCC_SSH_HOST…). */
export interface SshHostSettings {
  /** A host name or address. */
  host: string;
  port: number;
  /** The account the runtimes run as; nothing of OCC runs as it but them. */
  user: string;
  /**
   * The host key the host must present, pinned (never trust on first use), given as its public
   * key line (`ssh-ed25519 AAAA…`, as in `/etc/ssh/ssh_host_ed25519_key.pub`) or its `SHA256:…`
   * fingerprint (`ssh-keygen -lf`). Held as the SHA-256 of the key's blob.
   */
  hostKeySha256: Buffer;
  /** The client key (never logged, never sent but to sshd's signature check). */
  privateKey: Buffer;
}

/** The installation's ssh settings (docs/compute-ssh.md, "Settings"). */
export interface SshComputeSettings {
  /** OCC_SSH_WORKSPACE: where every host holds OCC's workspace (an OCC release after `npm ci`): the pinned runtime and its toolchain. */
  workspace: string;
  /** OCC_SSH_AGENTS_DIR: where each Agent's private directory lives on a host (default `.occ/agents` under the user's home). */
  agentsDir: string | null;
  /** OCC_SSH_HOST, OCC_SSH_USER, OCC_SSH_HOST_KEY, OCC_SSH_PRIVATE_KEY_FILE: the host of every Namespace that has none of its own; null without them. */
  defaultHost: SshHostSettings | null;
}

/** A host field that cannot be used, in words that fit both an environment variable and an API field. */
class BadHostField extends Error {
  constructor(
    readonly field: 'address' | 'user' | 'hostKey' | 'privateKey',
    message: string,
  ) {
    super(message);
  }
}

const HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})?$|^\[[0-9A-Fa-f:.]+\]$/;
const USER = /^[a-z_][a-z0-9_-]{0,31}$/;
const KEY_LINE = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521)\s+([A-Za-z0-9+/]+={0,2})(\s.*)?$/;
const FINGERPRINT = /^SHA256:([A-Za-z0-9+/]{43})=?$/;
/** A host path the driver puts in a shell command: absolute, no quotes, no shell specials, no `..`. */
const HOST_PATH = /^\/[A-Za-z0-9._/+-]*$/;
const HOST_VARIABLES = { address: 'OCC_SSH_HOST', user: 'OCC_SSH_USER', hostKey: 'OCC_SSH_HOST_KEY', privateKey: 'OCC_SSH_PRIVATE_KEY_FILE' } as const;
const HOST_SUBJECTS = { address: 'The address', user: 'The user', hostKey: 'The host key', privateKey: "The private key's Secret" } as const;
/** Where a Namespace's host names each field (PUT …/ssh-host's body). */
const HOST_POINTERS = { address: '/address', user: '/user', hostKey: '/hostKey', privateKey: '/privateKeySecretId' } as const;

/** The ssh driver's settings from the environment; a bad value names its variable (none of them is a secret; the key file's content is never shown). */
export function sshComputeSettings(env: NodeJS.ProcessEnv): SshComputeSettings {
  const workspace = hostPath('OCC_SSH_WORKSPACE', required(env, 'OCC_SSH_WORKSPACE'));
  const agentsDir = env.OCC_SSH_AGENTS_DIR ? hostPath('OCC_SSH_AGENTS_DIR', env.OCC_SSH_AGENTS_DIR) : null;
  return { workspace, agentsDir, defaultHost: defaultHost(env) };
}

/** A Namespace's host as saved; a field that cannot be used throws a ComputeValidationError naming it in the body. */
export function namespaceHostSettings(saved: NamespaceSshHost): SshHostSettings {
  try {
    return hostSettings(saved.address, saved.user, saved.hostKey, Buffer.from(saved.privateKey, 'utf8'));
  } catch (error) {
    if (!(error instanceof BadHostField)) throw error;
    throw new ComputeValidationError('INVALID_SSH_HOST', `${HOST_SUBJECTS[error.field]} ${error.message}`, HOST_POINTERS[error.field]);
  }
}

/** The SHA-256 of a host key's blob, as OpenSSH's fingerprints hash it. */
export function hostKeyDigest(blob: Buffer): Buffer {
  return createHash('sha256').update(blob).digest();
}

/** The default host: all four variables, or none of them (every Namespace then saves its own). */
function defaultHost(env: NodeJS.ProcessEnv): SshHostSettings | null {
  const names = Object.values(HOST_VARIABLES);
  if (names.every((name) => !env[name]?.trim())) return null;
  const keyFile = required(env, 'OCC_SSH_PRIVATE_KEY_FILE');
  let privateKey: Buffer;
  try {
    privateKey = readFileSync(keyFile);
  } catch {
    throw new SshSettingError(`OCC_SSH_PRIVATE_KEY_FILE: ${keyFile} cannot be read.`);
  }
  try {
    return hostSettings(required(env, 'OCC_SSH_HOST'), required(env, 'OCC_SSH_USER'), required(env, 'OCC_SSH_HOST_KEY'), privateKey);
  } catch (error) {
    if (!(error instanceof BadHostField)) throw error;
    const variable = HOST_VARIABLES[error.field];
    throw new SshSettingError(error.field === 'privateKey' ? `${variable}: ${keyFile} ${error.message}` : `${variable} ${error.message}`);
  }
}

function hostSettings(address: string, user: string, hostKey: string, privateKey: Buffer): SshHostSettings {
  const [host, port] = hostAndPort(address.trim());
  if (!USER.test(user)) throw new BadHostField('user', 'must be a POSIX user name (lowercase letters, digits, _ and -).');
  const parsed = privateKey.includes('PRIVATE KEY-----') ? ssh2.utils.parseKey(privateKey) : null;
  if (parsed === null || parsed instanceof Error) {
    throw new BadHostField('privateKey', 'holds no private key OCC can use (OpenSSH or PEM form, without a passphrase).');
  }
  return { host, port, user, hostKeySha256: pinnedKey(hostKey.trim()), privateKey };
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
  if (!HOST.test(host)) throw new BadHostField('address', 'must be a host name or address, optionally with :port.');
  if (port < 1 || port > 65535) throw new BadHostField('address', 'must name a port from 1 to 65535.');
  return [host.replace(/^\[|\]$/g, ''), port];
}

function pinnedKey(value: string): Buffer {
  const line = KEY_LINE.exec(value);
  if (line) return hostKeyDigest(Buffer.from(line[2]!, 'base64'));
  const fingerprint = FINGERPRINT.exec(value);
  if (fingerprint) return Buffer.from(fingerprint[1]!, 'base64');
  throw new BadHostField('hostKey', 'must be the host\'s public key line ("ssh-ed25519 AAAA…") or its SHA256: fingerprint.');
}

function hostPath(name: string, value: string): string {
  if (!isAbsolute(value) || !HOST_PATH.test(value) || value.split('/').includes('..')) {
    throw new SshSettingError(`${name} must be an absolute path on the host of letters, digits and . _ / + - (no ..).`);
  }
  return value.replace(/\/+$/, '') || '/';
}
