// The runtime image (apps/runtime/Dockerfile) on the real Docker engine, run as the docker driver
// runs it: read-only root, uid 10001, no capabilities, no new privileges, one tmpfs for the
// runtime's directories and one for /tmp, the manifest inline in the environment. One container
// for the whole file: it starts the real runtime, which drives the real OpenClaw CLI inside.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { StartupStatus } from '@occ/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestRuntimeImage } from '../../../../test-support/docker/test-runtime-image.ts';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { POD_PATHS } from '../../../controller/src/drivers/compute/kubernetes/render/revision.ts';
import { probeGatewayReady } from '../../src/gateway-probe.ts';
import { STATUS_TOKEN_HEADER } from '../../src/status-server.ts';
import { testManifest } from '../support/runtime-process.ts';

let image: string;
const container = `occ-runtime-image-test-${randomBytes(4).toString('hex')}`;
const statusToken = randomBytes(24).toString('base64url');
const gatewayToken = randomBytes(24).toString('base64url');
const manifest = testManifest({}, {});
let statusPort = 0;
let startedAt = 0;

function docker(args: string[], env: NodeJS.ProcessEnv = process.env): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('docker', args, { encoding: 'utf8', env, timeout: 120_000 });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

const logs = (): string => {
  const result = docker(['logs', container]);
  return result.stdout + result.stderr;
};

function events(): Array<{ event: string; [field: string]: unknown }> {
  return logs()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"source":"occ-runtime"'))
    .map((line) => JSON.parse(line) as { event: string });
}

const exec = (script: string) => docker(['exec', container, 'sh', '-c', script]);

const status = async (headers: Record<string, string> = { [STATUS_TOKEN_HEADER]: statusToken }) =>
  fetch(`http://127.0.0.1:${statusPort}/startup-status`, { headers });

beforeAll(async () => {
  image = await ensureTestRuntimeImage();
  startedAt = Date.now();
  // Values travel in the docker CLI's environment (`-e NAME` without a value), never in its argv.
  const values = { OCC_RUNTIME_STATUS_TOKEN: statusToken, OCC_RUNTIME_GATEWAY_TOKEN: gatewayToken, OCC_RUNTIME_MANIFEST_JSON: JSON.stringify(manifest) };
  const run = docker(
    [
      'run', '-d', '--name', container, '--label', 'org.occ.test=runtime-image',
      '--read-only', '--user', '10001:10001', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--network', 'host',
      '--tmpfs', '/var/lib/occ:rw,nosuid,nodev,size=512m,mode=0700,uid=10001,gid=10001', '--tmpfs', '/tmp:rw,nosuid,nodev,size=64m',
      ...Object.keys(values).flatMap((name) => ['-e', name]),
      image,
    ],
    { ...process.env, ...values },
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const serving = await waitFor('startup.serving in docker logs', async () => events().find((event) => event.event === 'startup.serving'), (found) => found !== undefined, 60_000, 250);
  statusPort = serving!.statusPort as number;
}, 900_000);

afterAll(() => {
  const removed = docker(['rm', '-f', '-v', container]);
  if (removed.status !== 0 && !removed.stderr.includes('No such container')) throw new Error(`docker rm -f ${container}: ${removed.stderr}`);
});

describe('the runtime image on the real Docker engine', () => {
  it('runs the runtime as uid 10001 on a read-only root; only the tmpfs is writable, its directories private', () => {
    // The base has no grep: the whole status file, matched here.
    const proc = exec("cat /proc/1/status; cat /proc/1/cmdline | tr '\\0' ' '");
    expect(proc.stdout).toMatch(/^Uid:\s+10001\s+10001\s+10001\s+10001$/m);
    expect(proc.stdout).toMatch(/^Gid:\s+10001\s+10001\s+10001\s+10001$/m);
    expect(proc.stdout).toContain('/opt/occ/apps/runtime/node24/node_modules/node/bin/node --import /opt/occ/apps/runtime/docker/private-dirs.mjs');

    // The runtime user cannot write anywhere in the image; even uid 0 (whose file modes would
    // allow it) is refused by the file system itself.
    for (const path of ['/opt/occ/apps/runtime/src/entry.ts', '/opt/occ/written', '/etc/passwd', '/written']) {
      expect(exec(`echo x >> ${path}`).status, path).not.toBe(0);
      const asRoot = docker(['exec', '--user', '0', container, 'sh', '-c', `echo x >> ${path}`]);
      expect(asRoot.status, path).not.toBe(0);
      expect(asRoot.stderr, path).toMatch(/Read-only file system/);
    }
    expect(exec('echo x > /var/lib/occ/tmp/written && echo x > /tmp/written').status).toBe(0);
    expect(exec(`stat -c '%a %u' ${POD_PATHS.home} ${POD_PATHS.tmp} ${POD_PATHS.revisionDir} ${POD_PATHS.stateDir}`).stdout.trim().split('\n')).toEqual(Array(4).fill('700 10001'));
    const inspected = JSON.parse(docker(['inspect', container]).stdout)[0].HostConfig as { ReadonlyRootfs: boolean; CapDrop: string[]; SecurityOpt: string[] };
    expect(inspected).toMatchObject({ ReadonlyRootfs: true, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] });
  });

  it('serves its startup status with the token (also as the header the pod proxy keeps), and no token value in its argv, labels or logs', async () => {
    expect((await status({})).status).toBe(401);
    expect((await status({ [STATUS_TOKEN_HEADER]: 'wrong-token-wrong-token' })).status).toBe(401);
    const answer = await status();
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as StartupStatus).revisionId).toBe(manifest.revisionId);
    expect((await status({ authorization: `Bearer ${statusToken}` })).status).toBe(200);

    const config = JSON.parse(docker(['inspect', container]).stdout)[0] as { Path: string; Args: string[]; Config: { Labels: Record<string, string> } };
    const visible = JSON.stringify([config.Path, config.Args, config.Config.Labels]) + logs();
    for (const secret of [statusToken, gatewayToken]) expect(visible).not.toContain(secret);
  });

  it('prepares with the real OpenClaw CLI inside the container and reaches ready; the gateway answers /readyz', async () => {
    const settled = await waitFor('a settled startup status', async () => (await (await status()).json()) as StartupStatus, (s) => s.phase !== 'preparing', 240_000, 1_000);
    const readyMs = Date.now() - startedAt;
    expect(settled).toMatchObject({ revisionId: manifest.revisionId, phase: 'ready', failures: [], error: null });
    const gatewayReady = await waitFor('gateway /readyz', () => probeGatewayReady(settled.gatewayPort!, gatewayToken, AbortSignal.timeout(5_000)), (ready) => ready, 240_000, 1_000);
    expect(gatewayReady).toBe(true);
    console.log(`runtime image: startup status ready after ${readyMs} ms, gateway /readyz after ${Date.now() - startedAt} ms (from docker run)`);
    // npm is in the image, on PATH beside the pinned node (OpenClaw runs it for plugin installs).
    expect(exec('npm --version && node --version').stdout).toMatch(/^\d+\.\d+\.\d+\nv24\./);
  }, 300_000);

  it('the image: labels, the non-root user, and the container paths of the runtime contract (POD_PATHS)', () => {
    const config = JSON.parse(docker(['image', 'inspect', image]).stdout)[0].Config as { User: string; Env: string[]; Labels: Record<string, string>; WorkingDir: string };
    expect(config.User).toBe('10001:10001');
    expect(config.Labels).toMatchObject({ 'org.opencontainers.image.title': 'occ-runtime', 'org.opencontainers.image.version': expect.any(String), 'org.opencontainers.image.source': expect.stringMatching(/^https:\/\//) });
    expect(config.Env).toEqual(expect.arrayContaining([`HOME=${POD_PATHS.home}`, `TMPDIR=${POD_PATHS.tmp}`, `OCC_RUNTIME_REVISION_DIR=${POD_PATHS.revisionDir}`, `OCC_RUNTIME_STATE_DIR=${POD_PATHS.stateDir}`]));
    expect(config.Env.find((entry) => entry.startsWith('PATH='))).toMatch(/^PATH=\/opt\/occ\/apps\/runtime\/node24\/node_modules\/\.bin:/);
  });
});
