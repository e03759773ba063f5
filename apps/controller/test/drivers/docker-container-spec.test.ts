import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridgeName, networkSpec } from '../../src/drivers/compute/docker/agent-network.ts';
import type { ContainerInspectInfo } from 'dockerode';
import { announcedEndpoint, demuxLog, sinceOf } from '../../src/drivers/compute/docker/container-log.ts';
import { containerName, containerSpec, LABELS, networkName, type ContainerSpecInput } from '../../src/drivers/compute/docker/container-spec.ts';
import { containerState } from '../../src/drivers/compute/docker/container-view.ts';
import { hostPortFor, RUNTIME_PORTS, withGatewayRelay } from '../../src/drivers/compute/docker/runtime-ports.ts';
import { dockerComputeSettings, DockerSettingError } from '../../src/drivers/compute/docker/settings.ts';
import { formatCidr, freeSubnet, parseCidr } from '../../src/drivers/compute/docker/subnets.ts';
import { CONTAINER_PATHS } from '../../src/drivers/compute/runtime-contract/container-paths.ts';
import { StartRefused } from '../../src/drivers/compute/runtime-contract/start-refusal.ts';

// The docker driver's pure parts: what `docker create` is given, its settings, and how it reads a
// container's log. The driver against the real engine: test/docker/docker-deploy.test.ts and docker-isolation.test.ts.
const CANARY = 'canary-value-9f8e7d6c';
const ENTRYPOINT = ['/opt/occ/apps/runtime/node24/node_modules/node/bin/node', '--import', '/opt/occ/apps/runtime/docker/private-dirs.mjs', '/opt/occ/apps/runtime/src/entry.ts'];
const revision = { namespaceId: 'ns_1', agentId: 'agt_0b0c5d52-9b5e-4f77-9d2a-1d6a2b3c4d5e', revisionId: 'rev_7c1f2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' };
const input = (over: Partial<ContainerSpecInput> = {}): ContainerSpecInput => ({
  settings: dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'occ-runtime:1' }),
  revision,
  manifestJson: '{"revisionId":"rev_x"}',
  tokens: { status: 'status-token-aaaaaaaaaaaaaaaa', gateway: 'gateway-token-bbbbbbbbbbbbbbbb', transport: 'transport-secret-cccccccccccccccccccccccc' },
  secrets: { MODEL_KEY: CANARY },
  network: {},
  harness: 'openclaw',
  entrypoint: withGatewayRelay(ENTRYPOINT)!,
  ...over,
});

describe('the docker container spec', () => {
  it('[P-2][P-8] is hardened, carries the manifest as one bounded variable, keeps state in private tmpfs, and puts Secret values in the environment only', () => {
    const spec = containerSpec(input());
    expect(spec.name).toBe(containerName('default', revision));
    expect(spec.User).toBe('10001:10001');
    expect(spec.HostConfig).toMatchObject({
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      Init: true,
      PidsLimit: 512,
      RestartPolicy: { Name: 'unless-stopped' },
    });
    expect(spec.Env).toContain('OCC_RUNTIME_MANIFEST_JSON={"revisionId":"rev_x"}');
    expect(spec.Env).toContain(`MODEL_KEY=${CANARY}`);
    expect(Object.keys(spec.HostConfig.Tmpfs as object)).toEqual(['/var/lib/occ', '/tmp']);
    // Docker's default for a tmpfs is noexec: nothing the Agent writes can be executed.
    expect(Object.values(spec.HostConfig.Tmpfs as Record<string, string>).every((options) => !options.split(',').includes('exec'))).toBe(true);
    expect(JSON.stringify({ name: spec.name, labels: spec.Labels })).not.toContain(CANARY);
    expect(spec.Labels[LABELS.deliveredSecrets]).toBe('MODEL_KEY');
  });

  it("joins the Agent's own network, never the host's: status and gateway relay published on the host's 127.0.0.1 only, the gateway on the container's loopback", () => {
    const spec = containerSpec(input());
    expect(spec.HostConfig.NetworkMode).toBe(networkName('default', revision.agentId));
    expect(spec.ExposedPorts).toEqual({ '18790/tcp': {}, '18788/tcp': {} });
    expect(spec.HostConfig.PortBindings).toEqual({ '18790/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }], '18788/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] });
    expect(spec.Env).toEqual(
      expect.arrayContaining(['OCC_RUNTIME_STATUS_ADDRESS=0.0.0.0', 'OCC_RUNTIME_STATUS_PORT=18790', 'OCC_RUNTIME_GATEWAY_PORT=18789', 'OCC_DOCKER_GATEWAY_RELAY=18788:18789']),
    );
    expect(spec.Env.some((e) => e.startsWith('OCC_RUNTIME_GATEWAY_ADDRESS='))).toBe(false);
    // The image's entrypoint, the relay preloaded right after Node.
    expect(spec.Entrypoint[0]).toBe(ENTRYPOINT[0]);
    expect(spec.Entrypoint.slice(1, 3)).toEqual(['--import', expect.stringMatching(/^data:text\/javascript,/)]);
    expect(spec.Entrypoint.slice(3)).toEqual(ENTRYPOINT.slice(1));
    expect(withGatewayRelay(['/bin/sh', '-c', 'x'])).toBeNull();
    expect(withGatewayRelay(null)).toBeNull();
  });

  it('maps only the ports OCC published: status to its own, the gateway to the relay; any other announced port to nothing', () => {
    const published = new Map([
      [RUNTIME_PORTS.status, 40001],
      [RUNTIME_PORTS.relay, 40002],
    ]);
    expect(hostPortFor(published, RUNTIME_PORTS.status)).toBe(40001);
    expect(hostPortFor(published, RUNTIME_PORTS.gateway)).toBe(40002);
    expect(hostPortFor(published, 5432)).toBeNull();
    expect(hostPortFor(new Map(), RUNTIME_PORTS.status)).toBeNull();
  });

  it('the preloaded relay forwards its port to the gateway on loopback and removes its variable from the environment', async () => {
    const gateway = createServer((socket) => socket.end('gateway says hi'));
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const relayPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const [node, ...rest] = withGatewayRelay([process.execPath])!;
    const script = `const net = require('node:net');
      const leaked = process.env.OCC_DOCKER_GATEWAY_RELAY ?? 'removed';
      const tryOnce = () => net.connect(${relayPort}, '127.0.0.1').on('error', () => setTimeout(tryOnce, 50)).on('data', (d) => { console.log(leaked + ' ' + d); process.exit(0); });
      tryOnce();`;
    const child = spawn(node!, [...rest, '-e', script], { env: { OCC_DOCKER_GATEWAY_RELAY: `${relayPort}:${(gateway.address() as AddressInfo).port}` } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => child.on('exit', resolve));
    gateway.close();
    expect(output.trim()).toBe('removed gateway says hi');
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

  it("mounts the Installation's local Codex marketplaces read-only, in order, and names them where the container has them", () => {
    const codex = { marketplaces: ['/srv/codex/team-a', '/srv/codex/team-b'], chatgptBaseUrl: null, authBaseUrl: null, modelBaseUrl: null };
    const spec = containerSpec(input({ codex }));
    expect(spec.Env).toContain('OCC_RUNTIME_CODEX_MARKETPLACES=/etc/occ/codex-marketplaces/0:/etc/occ/codex-marketplaces/1');
    expect(spec.HostConfig.Binds).toEqual(['/srv/codex/team-a:/etc/occ/codex-marketplaces/0:ro', '/srv/codex/team-b:/etc/occ/codex-marketplaces/1:ro']);
    expect(containerSpec(input()).Env.some((entry) => entry.startsWith('OCC_RUNTIME_CODEX_MARKETPLACES='))).toBe(false);
  });

  it("[G-6] a Codex revision is two containers: the codex_pat and the marketplaces in the app-server's only, the Secrets, tokens, catalog and published ports in the gateway's only", () => {
    const pat = 'at-canary-0123456789abcdef';
    const codex = { marketplaces: ['/srv/codex/team-a'], chatgptBaseUrl: 'https://hosted.example/backend-api', authBaseUrl: null, modelBaseUrl: null };
    const both = { harness: 'codex' as const, codexPat: pat, codex, catalogFile: '/srv/catalog.json' };
    const gateway = containerSpec(input(both));
    const appServer = containerSpec(input({ ...both, codexRole: 'app-server' }));
    expect(appServer.name).toBe(`${gateway.name}-codex`);
    expect(gateway.Env.join('\n')).not.toContain(pat);
    expect(gateway.Env).toEqual(
      expect.arrayContaining([
        'OCC_RUNTIME_CODEX_ROLE=gateway',
        'OCC_RUNTIME_CODEX_PEER_ADDRESS=codex-app-server',
        'OCC_RUNTIME_CODEX_PEER_STATUS_PORT=18791',
        `MODEL_KEY=${CANARY}`,
        'OCC_RUNTIME_CATALOG=/etc/occ/catalog.json',
      ]),
    );
    expect(gateway.HostConfig.Binds).toEqual(['/srv/catalog.json:/etc/occ/catalog.json:ro']);
    expect(appServer.Env).toEqual(
      expect.arrayContaining([
        `OCC_RUNTIME_CODEX_PAT=${pat}`,
        'OCC_RUNTIME_CODEX_ROLE=app-server',
        'OCC_RUNTIME_STATUS_ADDRESS=0.0.0.0',
        'OCC_RUNTIME_STATUS_PORT=18791',
        'OCC_RUNTIME_CODEX_APP_SERVER_PORT=18792',
        'OCC_RUNTIME_CODEX_MARKETPLACES=/etc/occ/codex-marketplaces/0',
        'OCC_RUNTIME_CODEX_CHATGPT_BASE_URL=https://hosted.example/backend-api',
      ]),
    );
    const names = (spec: typeof gateway) => spec.Env.map((entry) => entry.slice(0, entry.indexOf('=')));
    expect(names(appServer)).not.toEqual(expect.arrayContaining(['OCC_RUNTIME_GATEWAY_TOKEN']));
    expect(names(appServer)).not.toContain('MODEL_KEY');
    expect(names(appServer)).not.toContain('OCC_RUNTIME_CATALOG');
    expect(appServer.HostConfig.Binds).toEqual(['/srv/codex/team-a:/etc/occ/codex-marketplaces/0:ro']);
    expect([appServer.ExposedPorts, appServer.HostConfig.PortBindings]).toEqual([{}, {}]);
    expect(appServer.Labels).toMatchObject({ [LABELS.role]: 'app-server', [LABELS.revisionId]: revision.revisionId, [LABELS.deliveredSecrets]: '' });
    expect(gateway.Labels[LABELS.role]).toBeUndefined();
    // Both on the Agent's network; the gateway finds its app-server there by name.
    expect(appServer.HostConfig.NetworkMode).toBe(gateway.HostConfig.NetworkMode);
    expect(appServer.NetworkingConfig).toEqual({ EndpointsConfig: { [networkName('default', revision.agentId)]: { Aliases: ['codex-app-server'] } } });
    expect(appServer.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] });
  });

  it('[P-6] a candidate prepared beside the serving container holds for its go, and finds a go given in an earlier start in a directory of the driver mounted read-only; others neither hold nor mount it', () => {
    const proceedDir = '/var/lib/occ-data/compute/docker/proceed/occ-default-agt-rev';
    const spec = containerSpec(input({ proceedDir }));
    expect(spec.Env).toEqual(expect.arrayContaining(['OCC_RUNTIME_HOLD_BEFORE_GATEWAY=1', `OCC_RUNTIME_PROCEED_MARKER=${CONTAINER_PATHS.proceed}/go`]));
    expect(spec.HostConfig.Binds).toContain(`${proceedDir}:${CONTAINER_PATHS.proceed}:ro`);
    // What the driver reads back from `docker inspect`: the directory the go goes to.
    const inspected = { Id: 'c1', State: { Running: true, StartedAt: '' }, Config: { Env: spec.Env, Labels: spec.Labels }, HostConfig: spec.HostConfig, NetworkSettings: {} };
    expect(containerState(inspected as unknown as ContainerInspectInfo).proceedDir).toBe(proceedDir);
    const plain = containerSpec(input());
    expect(plain.Env.some((entry) => entry.startsWith('OCC_RUNTIME_HOLD_BEFORE_GATEWAY=') || entry.startsWith('OCC_RUNTIME_PROCEED_MARKER='))).toBe(false);
    expect(JSON.stringify(plain.HostConfig.Binds)).not.toContain(CONTAINER_PATHS.proceed);
    expect(
      containerState({ ...inspected, Config: { Env: plain.Env, Labels: plain.Labels }, HostConfig: plain.HostConfig } as unknown as ContainerInspectInfo).proceedDir,
    ).toBeNull();
  });

  it("a Codex Agent's private area is exec (its harness plugin's codex executable lives there); /tmp stays noexec", () => {
    const tmpfs = containerSpec(input({ harness: 'codex' })).HostConfig.Tmpfs as Record<string, string>;
    expect(tmpfs['/var/lib/occ']!.split(',')).toContain('exec');
    expect(tmpfs['/tmp']!.split(',')).not.toContain('exec');
  });
});

describe('docker settings', () => {
  it('need the image, and name the variable of a bad value', () => {
    expect(() => dockerComputeSettings({})).toThrow(/OCC_RUNTIME_IMAGE is required/);
    expect(() => dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_MEMORY: 'lots' })).toThrow(DockerSettingError);
    expect(() => dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_CPUS: '0' })).toThrow(/OCC_DOCKER_CPUS/);
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'occ-runtime:1', OCC_DOCKER_MEMORY: '512m', OCC_DOCKER_CPUS: '1.5' })).toMatchObject({
      memoryBytes: 512 * 1024 ** 2,
      nanoCpus: 1.5e9,
      pidsLimit: 512,
    });
  });

  it("give a Codex Agent's container its own memory limit and private area (OCC_DOCKER_CODEX_MEMORY 5g, OCC_DOCKER_CODEX_HOME_SIZE 4g by default)", () => {
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'occ-runtime:1' })).toMatchObject({
      memoryBytes: 2 * 1024 ** 3,
      codexMemoryBytes: 5 * 1024 ** 3,
      homeSize: '2g',
      codexHomeSize: '4g',
    });
    expect(() => dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_CODEX_HOME_SIZE: 'big' })).toThrow(/OCC_DOCKER_CODEX_HOME_SIZE/);
    expect((containerSpec(input({ harness: 'codex' })).HostConfig.Tmpfs as Record<string, string>)['/var/lib/occ']).toContain('size=4g');
    expect(() => dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_CODEX_MEMORY: '100m' })).toThrow(/OCC_DOCKER_CODEX_MEMORY must be at least 256m/);
    const settings = dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'occ-runtime:1', OCC_DOCKER_CODEX_MEMORY: '6g' });
    expect(containerSpec(input({ settings, harness: 'codex' })).HostConfig).toMatchObject({ Memory: 6 * 1024 ** 3, MemorySwap: 6 * 1024 ** 3 });
    expect(containerSpec(input({ settings })).HostConfig).toMatchObject({ Memory: 2 * 1024 ** 3 });
  });

  it('[P-6] replace a running OpenClaw revision by preparing beside it on the local engine unless OCC_DOCKER_REDEPLOY=recreate, by recreating it on a remote one unless asked; any other value names the variable', () => {
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x' }).redeploy).toBe('prepare-beside');
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_REDEPLOY: 'recreate' }).redeploy).toBe('recreate');
    // An engine elsewhere cannot see the go OCC records on its own host: `recreate` unless asked.
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', DOCKER_HOST: 'tcp://10.0.0.5:2376' }).redeploy).toBe('recreate');
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', DOCKER_HOST: 'unix:///run/docker.sock' }).redeploy).toBe('prepare-beside');
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', DOCKER_HOST: 'ssh://ops@engine', OCC_DOCKER_REDEPLOY: 'prepare-beside' }).redeploy).toBe('prepare-beside');
    expect(() => dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_REDEPLOY: 'rolling' })).toThrow(
      /OCC_DOCKER_REDEPLOY must be prepare-beside \(the default\) or recreate/,
    );
  });

  it("take the Agents' subnets from OCC_DOCKER_SUBNETS (default 198.18.0.0/16): an IPv4 block from /8 to /27", () => {
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x' }).subnets).toEqual(parseCidr('198.18.0.0/16'));
    expect(dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_SUBNETS: '10.77.0.0/20' }).subnets).toEqual(parseCidr('10.77.0.0/20'));
    for (const bad of ['10.77.0.1/16', '10.0.0.0/28', '10.0.0.0/7', '300.0.0.0/16', '10.0.0.0', 'fd00::/64', '010.0.0.0/16']) {
      expect(() => dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_SUBNETS: bad }), bad).toThrow(/OCC_DOCKER_SUBNETS/);
    }
  });
});

describe("an Agent's own network", () => {
  const settings = dockerComputeSettings({ OCC_RUNTIME_IMAGE: 'x', OCC_DOCKER_INSTALLATION: 'prod', OCC_DOCKER_SUBNETS: '198.18.0.0/24' });
  const pool = settings.subnets;

  it('is a labelled, non-internal bridge named like the containers, its interface occ + 12 hex', () => {
    const spec = networkSpec(settings, revision, parseCidr('198.18.0.32/28')!);
    expect(spec).toMatchObject({ Name: `occ-prod-${revision.agentId}`, CheckDuplicate: true, Driver: 'bridge', Internal: false, IPAM: { Config: [{ Subnet: '198.18.0.32/28' }] } });
    expect(spec.Labels).toEqual({ [LABELS.managedBy]: 'occ', [LABELS.installation]: 'prod', [LABELS.namespaceId]: revision.namespaceId, [LABELS.agentId]: revision.agentId });
    expect(spec.Options['com.docker.network.bridge.name']).toMatch(/^occ[0-9a-f]{12}$/);
    expect(bridgeName('prod', revision.agentId)).not.toBe(bridgeName('other', revision.agentId));
  });

  it('takes a free /28 of the pool, the same one for the same Agent, none when the pool is full', () => {
    const first = freeSubnet(pool, [], 'prod/agt_1')!;
    expect(first.prefix).toBe(28);
    expect(first.base % 16).toBe(0);
    expect(formatCidr(first)).toMatch(/^198\.18\.0\.\d+\/28$/);
    expect(freeSubnet(pool, [], 'prod/agt_1')).toEqual(first);
    // Taken (by another network, or a larger block overlapping it): the next free one.
    const next = freeSubnet(pool, [first, parseCidr('172.17.0.0/16')!], 'prod/agt_1')!;
    expect(next).not.toEqual(first);
    expect(freeSubnet(pool, [parseCidr('198.18.0.0/16')!], 'prod/agt_1')).toBeNull();
    const all = Array.from({ length: 16 }, (_, i) => parseCidr(`198.18.0.${i * 16}/28`)!);
    expect(freeSubnet(pool, all.slice(1), 'prod/agt_1')).toEqual(all[0]);
    // Another tool's subnet with host bits set still counts as taken.
    expect(parseCidr('198.18.0.17/28', false)).toEqual(parseCidr('198.18.0.16/28'));
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
    const text =
      serving('AAAAAAAAAAAAAAAAAAAAAAAA', 4100) +
      'npm says "startup.serving"\n' +
      serving('BBBBBBBBBBBBBBBBBBBBBBBB', 4200) +
      JSON.stringify({ source: 'plugin', event: 'startup.serving', startupId: 'CCCCCCCCCCCCCCCCCCCCCCCC', statusPort: 1 }) +
      '\n';
    expect(announcedEndpoint(text)).toEqual({ startupId: 'BBBBBBBBBBBBBBBBBBBBBBBB', statusPort: 4200 });
    expect(announcedEndpoint('nothing\n')).toBeNull();
    expect(announcedEndpoint(serving('short', 4100))).toBeNull();
  });

  it('turns a StartedAt into Docker’s since (seconds and nanoseconds)', () => {
    expect(sinceOf('2026-12-03T15:00:01.123456789Z')).toBe(`${Date.parse('2026-12-03T15:00:01Z') / 1000}.123456789`);
    expect(sinceOf('garbage')).toBe('0');
  });
});
