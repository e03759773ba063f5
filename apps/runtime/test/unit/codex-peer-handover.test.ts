import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartupStatus } from '@occ/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { usablePeer } from '../../src/codex/peer-status.ts';
import { bundleSkills, unpackSkills } from '../../src/codex/skills-bundle.ts';
import { linkPluginSkills } from '../../src/codex/skills.ts';
import { StartupFailure } from '../../src/failure.ts';

// What the two halves of a Codex revision hand each other (codex/peer-status.ts, codex/skills-bundle.ts).
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
const tempRoot = () => {
  const root = mkdtempSync(join(tmpdir(), 'occ-peer-handover-'));
  roots.push(root);
  return root;
};

describe('plugin skills across the two Codex containers', () => {
  it("[S-4] the app-server side bundles the linked skills with their relative files; the gateway side writes them into its own assets and links OpenClaw's home there", () => {
    const appServer = tempRoot();
    const skillDir = join(appServer, 'codex-home', 'plugins', 'cache', 'good', 'skills', 'hello');
    mkdirSync(join(skillDir, 'scripts'), { recursive: true });
    writeFileSync(join(skillDir, 'SKILL.md'), '# hello\nRun scripts/run.sh\n');
    writeFileSync(join(skillDir, 'scripts', 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    // A link inside a skill is not followed: it could point anywhere in the app-server's file system.
    symlinkSync('/etc/hostname', join(skillDir, 'scripts', 'elsewhere'));
    linkPluginSkills({
      assetsDir: join(appServer, 'assets'),
      openclawHome: join(appServer, 'state'),
      plugins: [{ nativeId: 'good@occ-fixtures', skills: [{ name: 'hello', path: join(skillDir, 'SKILL.md'), enabled: true }] }],
    });

    const bundle = JSON.parse(bundleSkills(join(appServer, 'assets')).toString('utf8'));
    expect(bundle.files.map((f: { path: string }) => f.path).sort()).toEqual(['good@occ-fixtures/hello/SKILL.md', 'good@occ-fixtures/hello/scripts/run.sh']);
    expect(JSON.stringify(bundle)).not.toContain(appServer);

    const gateway = tempRoot();
    expect(unpackSkills(bundle, { assetsDir: join(gateway, 'assets'), openclawHome: join(gateway, 'state') })).toBe(2);
    const published = join(gateway, 'state', 'plugin-skills');
    expect(readlinkSync(published)).toBe(join(gateway, 'assets', 'plugin-skills'));
    expect(readFileSync(join(published, 'good@occ-fixtures', 'hello', 'SKILL.md'), 'utf8')).toBe('# hello\nRun scripts/run.sh\n');
    expect(statSync(join(published, 'good@occ-fixtures', 'hello', 'scripts', 'run.sh')).mode & 0o777).toBe(0o700);
  });

  it("[S-4] a bundle cannot write outside the gateway's skills folder, and a malformed one publishes no skill", () => {
    const gateway = tempRoot();
    const file = (path: string) => ({ path, executable: false, content: Buffer.from('x').toString('base64') });
    const bundle = { files: [file('../escape.md'), file('/abs/x.md'), file('a/../../b.md'), file('good/./x.md'), file('good/hello/ok.md')] };
    expect(unpackSkills(bundle, { assetsDir: join(gateway, 'assets'), openclawHome: join(gateway, 'state') })).toBe(1);
    expect(existsSync(join(gateway, 'assets', 'escape.md'))).toBe(false);
    expect(existsSync(join(gateway, 'b.md'))).toBe(false);
    expect(unpackSkills({ files: 'nope' }, { assetsDir: join(gateway, 'assets'), openclawHome: join(gateway, 'state') })).toBe(0);
    expect(existsSync(join(gateway, 'assets', 'plugin-skills', 'good'))).toBe(false);
  });
});

describe("the peer's status as the gateway trusts it", () => {
  const peer = { host: '127.0.0.1', port: 8182 };
  const revisionId = 'rev_0b0c5d52-9b5e-4f77-9d2a-1d6a2b3c4d5e';
  const status = (plugins: Record<string, boolean>, over: Partial<StartupStatus> = {}): StartupStatus => ({
    revisionId,
    startupId: 'peer-startup-0123456789',
    phase: 'ready',
    plugins: ['codex:good@m'],
    failures: [],
    gatewayPort: null,
    error: null,
    codexPeer: {
      appServerPort: 8183,
      codexPlugins: {
        enabled: true,
        allow_all_plugins: false,
        plugins: Object.fromEntries(
          Object.entries(plugins).map(([id, enabled]) => [id, { enabled, marketplaceName: 'm', pluginName: id.split('@')[0]!, allow_destructive_actions: 'auto' as const }]),
        ),
      },
    },
    ...over,
  });
  const enabled = new Set(['codex:good@m', 'codex:off@m']);

  it('[G-7] [G-10] a ready peer of this revision is used with its bridge; one that is not ready, or has no peer status, is waited for', () => {
    expect(usablePeer(status({ 'good@m': true, 'off@m': false }), peer, revisionId, enabled)).toMatchObject({
      startupId: 'peer-startup-0123456789',
      appServer: { host: '127.0.0.1', port: 8183 },
    });
    expect(usablePeer(status({}, { phase: 'preparing' }), peer, revisionId, enabled)).toBeNull();
    expect(usablePeer(null, peer, revisionId, enabled)).toBeNull();
    const { codexPeer: _, ...withoutPeer } = status({});
    expect(usablePeer(withoutPeer, peer, revisionId, enabled)).toBeNull();
  });

  it('[G-7] a peer of another revision, or whose bridge enables a selection the peer did not install or the revision does not enable, fails the start', () => {
    const refused = (fn: () => unknown) => {
      expect(fn).toThrow(StartupFailure);
      expect(fn).toThrow(/CODEX_APP_SERVER_FAILED|another revision|does not admit/);
    };
    refused(() => usablePeer(status({}, { revisionId: 'rev_1f1c5d52-9b5e-4f77-9d2a-1d6a2b3c4d5e' }), peer, revisionId, enabled));
    refused(() => usablePeer(status({ 'off@m': true }), peer, revisionId, enabled));
    refused(() => usablePeer(status({ 'other@m': true }), peer, revisionId, enabled));
  });
});
