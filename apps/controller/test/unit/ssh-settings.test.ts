import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostPool } from '../../src/drivers/compute/ssh/host-pool.ts';
import { parseObserved } from '../../src/drivers/compute/ssh/observe.ts';
import { ComputeValidationError } from '../../src/core/ports/compute-driver.ts';
import { namespaceHostSettings, SshSettingError, sshComputeSettings } from '../../src/drivers/compute/ssh/settings.ts';

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
    expect(settings).toMatchObject({ workspace: '/opt/occ', agentsDir: null, defaultHost: { host: 'agents.example.com', port: 2222, user: 'occ-agents' } });
    // The same digest `ssh-keygen -lf` shows for the host key.
    const fingerprint = execFileSync('ssh-keygen', ['-lf', join(dir, 'host_key.pub')], { encoding: 'utf8' }).split(' ')[1]!;
    expect(`SHA256:${settings.defaultHost!.hostKeySha256.toString('base64').replace(/=+$/, '')}`).toBe(fingerprint);
    expect(sshComputeSettings({ ...valid(), OCC_SSH_HOST_KEY: fingerprint }).defaultHost!.hostKeySha256).toEqual(settings.defaultHost!.hostKeySha256);
    expect(sshComputeSettings({ ...valid(), OCC_SSH_HOST: '10.0.0.5' }).defaultHost!.port).toBe(22);
  });

  it('without any of the four host variables there is no default host (each Namespace saves its own); one of them alone names the others', () => {
    const hostless = { OCC_SSH_WORKSPACE: '/opt/occ' };
    expect(sshComputeSettings(hostless)).toEqual({ workspace: '/opt/occ', agentsDir: null, defaultHost: null });
    expect(refusal({ ...hostless, OCC_SSH_HOST: 'agents.example.com' })).toContain('OCC_SSH_PRIVATE_KEY_FILE');
    expect(refusal({ ...hostless, OCC_SSH_HOST: 'agents.example.com', OCC_SSH_PRIVATE_KEY_FILE: keyFile })).toContain('OCC_SSH_USER');
  });

  it("a Namespace's saved host: each field that cannot be used is refused with its pointer in PUT …/ssh-host's body, never showing the key", () => {
    const saved = () => ({ address: '[fd00::5]:2200', user: 'occ-agents', hostKey: hostKeyLine, privateKey: readFileSync(keyFile, 'utf8') });
    expect(namespaceHostSettings(saved())).toMatchObject({ host: 'fd00::5', port: 2200, user: 'occ-agents' });
    const pointerOf = (fields: Record<string, string>) => {
      try {
        namespaceHostSettings({ ...saved(), ...fields });
      } catch (error) {
        expect(error).toBeInstanceOf(ComputeValidationError);
        expect((error as Error).message).not.toContain('secret-looking-content');
        return (error as ComputeValidationError).pointer;
      }
      throw new Error('accepted');
    };
    expect(pointerOf({ address: 'host;reboot' })).toBe('/address');
    expect(pointerOf({ address: 'host:0' })).toBe('/address');
    expect(pointerOf({ user: 'Root' })).toBe('/user');
    expect(pointerOf({ hostKey: 'trust-on-first-use' })).toBe('/hostKey');
    expect(pointerOf({ privateKey: 'secret-looking-content' })).toBe('/privateKeySecretId');
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

describe("where a Namespace's Agents run (host-pool.ts)", () => {
  const hostOf = (address: string) => ({ address, user: 'occ-agents', hostKey: hostKeyLine, privateKey: readFileSync(keyFile, 'utf8') });
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'placed',
      (error: { code?: string }) => error.code,
    );

  it("the Namespace's saved host, else the default; none → SSH_HOST_UNCONFIGURED, a saved key that no longer parses → SSH_HOST_INVALID; one connection per distinct host", async () => {
    const saved = new Map<string, ReturnType<typeof hostOf>>([
      ['ns_a', hostOf('a.example.com')],
      ['ns_b', hostOf('a.example.com')],
      ['ns_broken', { ...hostOf('a.example.com'), privateKey: 'rotated to something else' }],
    ]);
    const hostless = new HostPool({ workspace: '/opt/occ', agentsDir: '/srv/agents', defaultHost: null });
    hostless.use({ sshHostOf: async (ns) => saved.get(ns) ?? null });
    const a = await hostless.of('ns_a');
    // Two Namespaces naming the same host share its connection.
    expect(await hostless.of('ns_b')).toBe(a);
    expect(await a.agentsDirectory()).toBe('/srv/agents');
    expect(await failureOf(hostless.of('ns_none'))).toBe('SSH_HOST_UNCONFIGURED');
    expect(await failureOf(hostless.of('ns_broken'))).toBe('SSH_HOST_INVALID');
    await hostless.close();

    const withDefault = new HostPool(sshComputeSettings(valid()));
    withDefault.use({ sshHostOf: async (ns) => saved.get(ns) ?? null });
    const fallback = await withDefault.of('ns_none');
    expect(fallback).not.toBe(await withDefault.of('ns_a'));
    // Before a worker hands it the saved hosts (the API process of `occ up` reads too), the default only.
    const early = new HostPool(sshComputeSettings(valid()));
    expect(await failureOf(early.of('ns_a'))).toBe('placed');
    await Promise.all([withDefault.close(), early.close()]);
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
