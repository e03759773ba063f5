import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseObserved } from '../../src/drivers/compute/ssh/observe.ts';
import { SshSettingError, sshComputeSettings } from '../../src/drivers/compute/ssh/settings.ts';

let dir: string;
let keyFile: string;
let hostKeyLine: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'occ-ssh-settings-'));
  keyFile = join(dir, 'client_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
  hostKeyLine = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const valid = () => ({
  OCC_SSH_HOST: 'agents.example.com:2222',
  OCC_SSH_USER: 'occ-agents',
  OCC_SSH_HOST_KEY: hostKeyLine,
  OCC_SSH_PRIVATE_KEY_FILE: keyFile,
  OCC_SSH_WORKSPACE: '/opt/occ',
});
const refusal = (env: Record<string, string | undefined>) => {
  try {
    sshComputeSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SshSettingError);
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('the ssh driver settings (docs/compute-ssh.md, "Settings")', () => {
  it('a complete set is read: host and port, user, the pinned key as the SHA-256 OpenSSH prints, the key file, the workspace', () => {
    const settings = sshComputeSettings(valid());
    expect(settings).toMatchObject({ host: 'agents.example.com', port: 2222, user: 'occ-agents', workspace: '/opt/occ', agentsDir: null });
    // The same digest `ssh-keygen -lf` shows for the host key.
    const fingerprint = execFileSync('ssh-keygen', ['-lf', join(dir, 'host_key.pub')], { encoding: 'utf8' }).split(' ')[1]!;
    expect(`SHA256:${settings.hostKeySha256.toString('base64').replace(/=+$/, '')}`).toBe(fingerprint);
    expect(sshComputeSettings({ ...valid(), OCC_SSH_HOST_KEY: fingerprint }).hostKeySha256).toEqual(settings.hostKeySha256);
    expect(sshComputeSettings({ ...valid(), OCC_SSH_HOST: '10.0.0.5' }).port).toBe(22);
  });

  it('each missing or malformed setting stops the start naming its variable, never showing the key file', () => {
    for (const name of ['OCC_SSH_HOST', 'OCC_SSH_USER', 'OCC_SSH_HOST_KEY', 'OCC_SSH_PRIVATE_KEY_FILE', 'OCC_SSH_WORKSPACE']) {
      expect(refusal({ ...valid(), [name]: undefined })).toContain(name);
    }
    expect(refusal({ ...valid(), OCC_SSH_HOST: 'host;rm -rf /' })).toContain('OCC_SSH_HOST');
    expect(refusal({ ...valid(), OCC_SSH_HOST: 'host:70000' })).toContain('port');
    expect(refusal({ ...valid(), OCC_SSH_USER: 'Root User' })).toContain('OCC_SSH_USER');
    expect(refusal({ ...valid(), OCC_SSH_HOST_KEY: 'trust-on-first-use' })).toContain('OCC_SSH_HOST_KEY');
    expect(refusal({ ...valid(), OCC_SSH_WORKSPACE: 'relative/path' })).toContain('OCC_SSH_WORKSPACE');
    expect(refusal({ ...valid(), OCC_SSH_WORKSPACE: "/opt/occ'; reboot" })).toContain('OCC_SSH_WORKSPACE');
    expect(refusal({ ...valid(), OCC_SSH_AGENTS_DIR: '/srv/../etc' })).toContain('OCC_SSH_AGENTS_DIR');
    expect(refusal({ ...valid(), OCC_SSH_PRIVATE_KEY_FILE: join(dir, 'missing') })).toContain('cannot be read');
    const notAKey = join(dir, 'not-a-key');
    writeFileSync(notAKey, 'secret-looking-content');
    const message = refusal({ ...valid(), OCC_SSH_PRIVATE_KEY_FILE: notAKey });
    expect(message).toContain('holds no private key OCC can use');
    expect(message).not.toContain('secret-looking-content');
    // A key with a passphrase cannot be used unattended: refused at start, not at the first connection.
    const locked = join(dir, 'locked_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'a passphrase', '-f', locked]);
    expect(refusal({ ...valid(), OCC_SSH_PRIVATE_KEY_FILE: locked })).toContain('without a passphrase');
  });
});

describe('a look at a runtime on the host (observe.ts)', () => {
  const endpoint = (pid: number) => JSON.stringify({ pid, statusPort: 41000, startupId: 'abcdefghijklmnopqrstuvwx' });

  it('trusts an endpoint only when the recorded process runs and wrote it', () => {
    expect(parseObserved(`running 4242\n${endpoint(4242)}\n`)).toEqual({ running: true, endpoint: { statusPort: 41000, startupId: 'abcdefghijklmnopqrstuvwx' } });
    // Written by an earlier start (another pid): not this start's.
    expect(parseObserved(`running 4242\n${endpoint(4141)}\n`)).toEqual({ running: true, endpoint: null });
    expect(parseObserved('running 4242\n')).toEqual({ running: true, endpoint: null });
    expect(parseObserved('running 4242\n{"pid":4242,"statusPort":99999,"startupId":"abcdefghijklmnopqrstuvwx"}')).toEqual({ running: true, endpoint: null });
    expect(parseObserved('stopped\n')).toEqual({ running: false, endpoint: null });
    expect(parseObserved('')).toEqual({ running: false, endpoint: null });
  });
});
