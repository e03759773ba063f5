import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { announcedEndpoint, demuxLog, sinceOf } from '../../src/drivers/compute/docker/container-log.ts';
import { containerName, containerSpec, LABELS, type ContainerSpecInput } from '../../src/drivers/compute/docker/container-spec.ts';
import { dockerComputeSettings, DockerSettingError } from '../../src/drivers/compute/docker/settings.ts';
import { StartRefused } from '../../src/drivers/compute/runtime-contract/start-refusal.ts';

// The docker driver's pure parts: what `docker create` is given, its settings, and how it reads a
// container's log. The driver against the real engine: test/e2e/docker-deploy.test.ts.
const CANARY = 'canary-value-9f8e7d6c';
const revision = { namespaceId: 'ns_1', agentId: 'agt_0b0c5d52-9b5e-4f77-9d2a-1d6a2b3c4d5e', revisionId: 'rev_7c1f2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' };
const input = (over: Partial<ContainerSpecInput> = {}): ContainerSpecInput => ({
  settings: dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'occ-runtime:1' }),
  revision,
  manifestJson: '{"revisionId":"rev_x"}',
  tokens: { status: 'status-token-aaaaaaaaaaaaaaaa', gateway: 'gateway-token-bbbbbbbbbbbbbbbb', transport: 'transport-secret-cccccccccccccccccccccccc' },
  secrets: { MODEL_KEY: CANARY },
  network: {},
  ...over,
});

describe('the docker container spec', () => {
  it('[P-2][P-8] is hardened, carries the manifest as one bounded variable, keeps state in private tmpfs, and puts Secret values in the environment only', () => {
    const spec = containerSpec(input());
    expect(spec.name).toBe(containerName('default', revision));
    expect(spec.User).toBe('10001:10001');
    expect(spec.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], Privileged: false, Init: true, PidsLimit: 512, RestartPolicy: { Name: 'unless-stopped' } });
    expect(spec.Env).toContain('OCC_RUNTIME_MANIFEST_JSON={"revisionId":"rev_x"}');
    expect(spec.Env).toContain(`MODEL_KEY=${CANARY}`);
    expect(Object.keys(spec.HostConfig.Tmpfs as object)).toEqual(['/var/lib/occ', '/tmp']);
    expect(JSON.stringify({ name: spec.name, labels: spec.Labels })).not.toContain(CANARY);
    expect(spec.Labels[LABELS.deliveredSecrets]).toBe('MODEL_KEY');
  });

  it('refuses a Secret binding on a reserved variable before anything is created', () => {
    expect(() => containerSpec(input({ secrets: { NODE_OPTIONS: '--require x' } }))).toThrow(StartRefused);
  });

  it('mounts the CA file a network variable names read-only and points the variable there; the catalog likewise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-docker-spec-'));
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, 'pem');
    const spec = containerSpec(input({ network: { NODE_EXTRA_CA_CERTS: ca, HTTPS_PROXY: 'http://proxy:3128' }, catalogFile: join(dir, 'ca.pem') }));
    expect(spec.Env).toContain('NODE_EXTRA_CA_CERTS=/etc/occ/network/NODE_EXTRA_CA_CERTS');
    expect(spec.Env).toContain('HTTPS_PROXY=http://proxy:3128');
    expect(spec.Env).toContain('OCC_RUNTIME_CATALOG=/etc/occ/catalog.json');
    expect(spec.HostConfig.Binds).toEqual([`${ca}:/etc/occ/network/NODE_EXTRA_CA_CERTS:ro`, `${ca}:/etc/occ/catalog.json:ro`]);
  });
});

describe('docker settings', () => {
  it('need the image, and name the variable of a bad value', () => {
    expect(() => dockerComputeSettings({})).toThrow(/OCC_RUNTIME_IMAGE is required/);
    expect(() => dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_MEMORY: 'lots' })).toThrow(DockerSettingError);
    expect(() => dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_CPUS: '0' })).toThrow(/OCC_DOCKER_CPUS/);
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'occ-runtime:1', OCC_DOCKER_MEMORY: '512m', OCC_DOCKER_CPUS: '1.5' })).toMatchObject({ memoryBytes: 512 * 1024 ** 2, nanoCpus: 1.5e9, pidsLimit: 512 });
  });
});

describe('reading a container log', () => {
  const frame = (stream: number, text: string) => {
    const payload = Buffer.from(text);
    const header = Buffer.alloc(8);
    header[0] = stream;
    header.writeUInt32BE(payload.length, 4);
    return Buffer.concat([header, payload]);
  };
  const serving = (startupId: string, statusPort: number) => `${JSON.stringify({ source: 'occ-runtime', event: 'startup.serving', startupId, statusPort })}\n`;

  it('demultiplexes stdout and stderr frames in order', () => {
    expect(demuxLog(Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n')]))).toBe('out\nerr\n');
    expect(demuxLog(Buffer.from('plain tty text\n'))).toBe('plain tty text\n');
  });

  it('[S-2] takes the last well-formed startup.serving announcement; anyone else’s line is ignored', () => {
    const text = serving('AAAAAAAAAAAAAAAAAAAAAAAA', 4100) + 'npm says "startup.serving"\n' + serving('BBBBBBBBBBBBBBBBBBBBBBBB', 4200) + JSON.stringify({ source: 'plugin', event: 'startup.serving', startupId: 'CCCCCCCCCCCCCCCCCCCCCCCC', statusPort: 1 }) + '\n';
    expect(announcedEndpoint(text)).toEqual({ startupId: 'BBBBBBBBBBBBBBBBBBBBBBBB', statusPort: 4200 });
    expect(announcedEndpoint('nothing\n')).toBeNull();
    expect(announcedEndpoint(serving('short', 4100))).toBeNull();
  });

  it('turns a StartedAt into Docker’s since (seconds and nanoseconds)', () => {
    expect(sinceOf('2026-12-03T15:00:01.123456789Z')).toBe(`${Date.parse('2026-12-03T15:00:01Z') / 1000}.123456789`);
    expect(sinceOf('garbage')).toBe('0');
  });
});
