import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demuxLog } from '../../src/drivers/compute/docker/container-log.ts';
import { labelFilter, LABELS, networkName, RUNTIME_IMAGE_HOLDS_LABEL } from '../../src/drivers/compute/docker/container-spec.ts';
import { RUNTIME_PORTS } from '../../src/drivers/compute/docker/runtime-ports.ts';
import { CONTAINER_PATHS } from '../../src/drivers/compute/runtime-contract/container-paths.ts';
import { POD_PATHS } from '../../src/drivers/compute/kubernetes/render/revision.ts';
import { activeRevisionId, admit, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { gatewayTokenOf, publishedPort, startDockerWorld, type DockerWorld } from '../../../../test-support/docker/docker-world.ts';
import { relayToAgents, type HostRelay } from '../../../../test-support/docker/host-relay.ts';
import { FIXTURE_PLUGINS } from '../../../../test-support/npm-registry.ts';
import { callTool, scriptedModelConfiguration } from '../../../../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../test-support/scripted-model-server.ts';
import { adminCreate, grant, uniqueName } from '../../../../test-support/world.ts';

// The docker ComputeDriver on the machine's real Docker engine (dockerd --bridge=none) with the
// real runtime image (apps/runtime/Dockerfile, built on a locally made base): real OpenClaw
// installs from the run's fixture registry inside hardened containers, each Agent on a network of
// its own (the registry relayed to the Agents on the host's own address). One Agent's life here
// (its model a scripted one, which drives its own tools against the go's directory): its hardened
// first revision, a replacing one, a failing candidate, its deletion. What an Agent
// can reach and how its container comes back (engine restart, OCC restart) are in
// docker-isolation.test.ts, a file of its own so both run in parallel.
const DEPLOY_MS = 300_000;
/** One turn of the scripted model calling a tool through the Agent's gateway. */
const TURN_MS = 240_000;
const GOOD = FIXTURE_PLUGINS.good;
const KEY_VARIABLE = 'FIXTURE_API_KEY';
const canary = `docker-canary-${randomBytes(12).toString('hex')}`;

let world: DockerWorld;
let model: ScriptedModelServer;
let modelRelay: HostRelay;
let target: DeployTarget;
/** The Agent's Configuration values: the scripted model, and the coding profile (its read, write and exec). */
let values: Record<string, unknown>;
const t = () => world.t();
const request = (options: Parameters<DockerWorld['request']>[0]) => world.request(options);
const containersOf = (agentId: string) => world.containersOf(agentId);
const containerOf = (revisionId: string) => world.containerOf(revisionId);
const exec = (id: string, cmd: string[], user?: string) => world.exec(id, cmd, user);
const networkOf = (agentId: string) => world.networkOf(agentId);
const live = (revisionId: string) => world.live(revisionId, target);

beforeAll(async () => {
  world = await startDockerWorld();
  model = await startScriptedModelServer();
  // Reached the way an operator's model provider would be: through the Agent network's route out.
  modelRelay = await relayToAgents(model.baseUrl, world.subnets);
}, 900_000);

afterAll(async () => {
  await modelRelay?.close();
  await model?.close();
  await world?.close();
}, 120_000);

let first: string;
let second: string;

/** The runtime's own log events of a container (apps/runtime/src/log.ts), with their time in nanoseconds (Docker's events' unit). */
async function runtimeEvents(id: string): Promise<Array<{ event: string; nanos: number }>> {
  const raw = (await world.docker.getContainer(id).logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
  return demuxLog(raw)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { event?: string; time?: string; source?: string })
    .filter((line) => line.source === 'occ-runtime' && typeof line.event === 'string' && typeof line.time === 'string')
    .map((line) => ({ event: line.event!, nanos: Date.parse(line.time!) * 1e6 }));
}

describe('the docker ComputeDriver on a real Docker engine', () => {
  it('the runtime image (apps/runtime/Dockerfile): non-root, labelled, running the bundled runtime, and the container paths both drivers mount are the ones it uses', async () => {
    const { Config } = await world.docker.getImage(world.image).inspect();
    expect(Config.User).toBe('10001:10001');
    // Its runtime holds beside a serving container and reads a recorded go: the driver asks only such an image to.
    expect(Config.Labels).toMatchObject({
      'org.opencontainers.image.title': 'occ-runtime',
      'org.opencontainers.image.version': expect.any(String),
      [RUNTIME_IMAGE_HOLDS_LABEL]: '1',
    });
    const paths = { home: CONTAINER_PATHS.home, tmp: CONTAINER_PATHS.tmp, revisionDir: CONTAINER_PATHS.revisionDir, stateDir: CONTAINER_PATHS.stateDir };
    expect({ home: POD_PATHS.home, tmp: POD_PATHS.tmp, revisionDir: POD_PATHS.revisionDir, stateDir: POD_PATHS.stateDir }).toEqual(paths);
    expect(Config.Env).toEqual(
      expect.arrayContaining([`HOME=${paths.home}`, `TMPDIR=${paths.tmp}`, `OCC_RUNTIME_REVISION_DIR=${paths.revisionDir}`, `OCC_RUNTIME_STATE_DIR=${paths.stateDir}`]),
    );
    expect(Config.Env.find((entry) => entry.startsWith('PATH='))).toMatch(/^PATH=\/opt\/occ\/apps\/runtime\/node24\/node_modules\/\.bin:/);
    // The runtime as one bundled module (apps/runtime/src/runtime-bundle.ts), as runtimeLaunchCommand() runs it on this host.
    expect(Config.Entrypoint?.at(-1)).toBe('/opt/occ/apps/runtime/src/.entry.bundle.mjs');
  });

  it(
    '[P-2][P-7][P-8] a revision runs in a hardened container: non-root, read-only root, no capabilities, no new privileges, limits; the manifest as bounded environment; native state in private tmpfs; no Secret value in the command line or labels',
    async () => {
      const scripted = scriptedModelConfiguration(model, { baseUrl: modelRelay.url });
      values = { ...scripted, tools: { ...(scripted.tools as Record<string, unknown>), profile: 'coding' } };
      target = await newDeployTarget(t(), { plugins: { [`openclaw:${GOOD.package}`]: { enabled: true } }, values });
      const ns = world.base.defaultNamespaceId;
      const secret = await adminCreate(t(), `/namespaces/${ns}/secrets`, { name: uniqueName('key'), value: canary });
      const bound = await request({
        method: 'PATCH',
        url: `/namespaces/${ns}/configurations/${target.cfg}`,
        body: { secretBindings: { [KEY_VARIABLE]: { secretId: secret.id } } },
      });
      expect(bound.status, bound.raw).toBe(200);
      await grant(t(), target.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });

      const started = Date.now();
      first = (await admit(t(), target)).id;
      const status = await waitTerminal(t(), target, first, DEPLOY_MS);
      console.log(`docker deploy (one plugin installed in the container): ${Date.now() - started} ms`);
      expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
      expect(await live(first)).toMatchObject({ running: true, ready: true, phase: 'ready', deliveredSecrets: [KEY_VARIABLE], restarts: 0 });

      const info = await containerOf(first);
      expect(info.State.Running).toBe(true);
      expect(info.Config.User).toBe('10001:10001');
      expect(info.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ['ALL'], Privileged: false, Init: true, PidsLimit: 512, RestartPolicy: { Name: 'unless-stopped' } });
      // The Agent's own network, never the host's; its status and gateway relay published on the host's loopback only.
      expect(info.HostConfig.NetworkMode).toBe(networkName(world.installation, target.agentId));
      expect(Object.keys(info.NetworkSettings.Networks)).toEqual([networkName(world.installation, target.agentId)]);
      expect(Object.values(info.HostConfig.PortBindings ?? {}).flat()).toEqual([
        { HostIp: '127.0.0.1', HostPort: '' },
        { HostIp: '127.0.0.1', HostPort: '' },
      ]);
      expect((await networkOf(target.agentId))?.Labels).toMatchObject({ [LABELS.managedBy]: 'occ', [LABELS.installation]: world.installation, [LABELS.agentId]: target.agentId });
      expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
      expect(info.HostConfig.Memory).toBe(2 * 1024 ** 3);
      expect(info.HostConfig.NanoCpus).toBe(1e9);
      // [P-2] the request arrives as one bounded variable; no manifest file is given.
      const env = new Map((info.Config.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
      expect(JSON.parse(env.get('OCC_RUNTIME_MANIFEST_JSON')!)).toMatchObject({
        revisionId: first,
        agentId: target.agentId,
        plugins: { selections: { [`openclaw:${GOOD.package}`]: { enabled: true } } },
      });
      expect(env.has('OCC_RUNTIME_MANIFEST')).toBe(false);
      // [P-8] home, temporary directory, revision directory and OpenClaw state are private tmpfs (0700, the runtime user's); nothing writable is mounted from the host.
      expect(Object.keys(info.HostConfig.Tmpfs ?? {}).sort()).toEqual(['/tmp', '/var/lib/occ']);
      expect(Object.values(info.HostConfig.Tmpfs ?? {}).every((o) => o.includes('mode=0700') && o.includes('uid=10001'))).toBe(true);
      expect(info.Mounts.filter((m) => m.Type !== 'tmpfs').every((m) => m.RW === false)).toBe(true);
      // [P-7] the revision's files and the Agent's OpenClaw state (its plugin registry and installs) are the runtime user's alone.
      const state = await exec(info.Id, [
        'sh',
        '-c',
        'id -u; stat -c %a /var/lib/occ/revision /var/lib/occ/state; ls /var/lib/occ/state/npm >/dev/null && echo installed-here; touch /opt/occ/x 2>/dev/null || echo read-only',
      ]);
      expect(state.output.trim().split('\n')).toEqual(['10001', '700', '700', 'installed-here', 'read-only']);
      // Not even root inside writes to the image.
      const root = await exec(info.Id, ['sh', '-c', 'touch /opt/occ/x 2>&1 || true'], '0');
      expect(root.output).toMatch(/Read-only file system/);
      // The canary is in the container's environment only: not its command line, not a label.
      expect(JSON.stringify([info.Path, info.Args, info.Config.Cmd, info.Config.Entrypoint, info.Config.Labels])).not.toContain(canary);
      expect(info.Config.Labels?.[LABELS.deliveredSecrets]).toBe(KEY_VARIABLE);
      const logs = await request({ method: 'GET', url: `${target.url}/deployments/${first}/runtime/logs?tail=1000` });
      expect(logs.status).toBe(200);
      expect(logs.body.data.lines.join('\n')).toContain('startup.ready');
      expect(logs.raw).not.toContain(canary);
    },
    DEPLOY_MS,
  );

  it(
    "[P-5][P-6][P-8] a second revision replaces the first, prepared beside it (OCC_DOCKER_REDEPLOY, default prepare-beside): the old container serves while the new one prepares and stops before the new one goes on to its gateway (never two gateways on the Agent), is removed once the new one is active, and the go outlives a restart of the new container; the go's directory is read-only to the Agent's user and to root inside, and the Agent's own exec and write tools, driven by a scripted model, cannot change it either",
    async () => {
      const since = Math.floor(Date.now() / 1000) - 1;
      const oldId = (await containerOf(first)).Id;
      const networkId = (await networkOf(target.agentId))!.Id;
      const changed = await request({ method: 'PATCH', url: target.url, body: { plugins: {} } });
      expect(changed.status, changed.raw).toBe(200);
      // While it deploys, both revisions' live views are sampled: which gateway serves, and when.
      const samples: Array<{ oneReady: boolean; twoRunning: boolean; twoReady: boolean }> = [];
      let candidate: string | null = null;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const one = await live(first).catch(() => null);
          const two = candidate === null ? null : await live(candidate).catch(() => null);
          samples.push({ oneReady: one?.ready === true, twoRunning: two?.running === true, twoReady: two?.ready === true });
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      })();
      second = (await admit(t(), target)).id;
      candidate = second;
      const status = await waitTerminal(t(), target, second, DEPLOY_MS).finally(() => (sampling = false));
      await sampler;
      expect(status).toMatchObject({ state: 'succeeded', active: true });
      expect(await activeRevisionId(t(), target)).toBe(second);
      expect(samples.some((sample) => sample.oneReady && sample.twoRunning)).toBe(true);
      expect(samples.filter((sample) => sample.oneReady && sample.twoReady)).toEqual([]);
      const newId = (await containerOf(second)).Id;
      const until = Math.ceil(Date.now() / 1000) + 1;
      const raw = (await world.docker.getEvents({
        since,
        until,
        filters: { type: ['container'], label: labelFilter(world.installation, { agentId: target.agentId }) },
      })) as unknown as NodeJS.ReadableStream;
      const text = await new Promise<string>((resolve) => {
        let all = '';
        raw.on('data', (chunk: Buffer) => (all += chunk.toString('utf8')));
        raw.on('end', () => resolve(all));
      });
      const events = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { Action: string; id: string; timeNano: number });
      const at = (id: string, action: string) => events.find((e) => e.id === id && e.Action === action)?.timeNano;
      expect(at(newId, 'start')).toBeDefined();
      expect(at(oldId, 'die')).toBeDefined();
      expect(at(newId, 'start')!).toBeLessThan(at(oldId, 'die')!);
      expect(at(oldId, 'destroy')).toBeDefined();
      // In the new runtime's own words: prepared while the old container ran, told to go on only
      // once it had stopped, then its gateway.
      const said = await runtimeEvents(newId);
      const when = (event: string) => said.find((e) => e.event === event)?.nanos;
      const order = [when('startup.prepared'), at(oldId, 'die'), when('startup.proceeding'), when('gateway.started')];
      expect(
        order.every((time) => typeof time === 'number'),
        JSON.stringify(order),
      ).toBe(true);
      expect([...order].sort((a, b) => a! - b!)).toEqual(order);
      const ms = (from: number, to: number) => Math.round((to - from) / 1e6);
      console.log(
        `docker redeploy prepared beside: ${ms(at(newId, 'start')!, when('startup.prepared')!)} ms prepared while the old container served; ` +
          `old stopped → new ready ${ms(at(oldId, 'die')!, when('startup.ready')!)} ms (go → ready ${ms(when('startup.proceeding')!, when('startup.ready')!)} ms)`,
      );
      expect((await containersOf(target.agentId)).map((c) => c.Id)).toEqual([newId]);
      // Both revisions on the Agent's one network (made once, found again by name).
      expect((await containerOf(second)).NetworkSettings.Networks[networkName(world.installation, target.agentId)]?.NetworkID).toBe(networkId);

      // The engine starts a container again with the environment it was created with (the hold):
      // the go the driver recorded is found, and the runtime goes straight on to its gateway.
      const restartedAt = Date.now() * 1e6;
      await world.docker.getContainer(newId).restart({ t: 25 });
      await waitFor(
        'revision 2 ready again after its container restarted',
        () => live(second),
        (v) => v.ready === true,
        DEPLOY_MS,
        500,
      );
      const again = (await runtimeEvents(newId)).filter((e) => e.nanos >= restartedAt).map((e) => e.event);
      expect(again).toContain('startup.proceeded_before');
      expect(again).toContain('gateway.started');
      expect(again).not.toContain('startup.prepared');

      // [P-8] The go's directory is shown read-only, like every host directory the container gets:
      // the Agent's user (what its exec tool runs as) can neither take its go back nor plant
      // anything there, nor can root inside; it holds the go alone (this container's own directory,
      // nothing else of OCC's data in view).
      const info = await containerOf(second);
      expect(info.Mounts.find((m) => m.Destination === CONTAINER_PATHS.proceed)).toMatchObject({ Type: 'bind', RW: false });
      expect(info.Mounts.filter((m) => m.Type === 'bind').every((m) => m.RW === false)).toBe(true);
      const probe = `rm -f ${CONTAINER_PATHS.proceed}/go 2>&1; touch ${CONTAINER_PATHS.proceed}/x 2>&1; ls -A ${CONTAINER_PATHS.proceed}`;
      for (const user of [undefined, '0']) {
        const tried = await exec(newId, ['sh', '-c', probe], user);
        expect(tried.output.match(/Read-only file system/g), tried.output).toHaveLength(2);
        expect(tried.output.trim().split('\n').at(-1)).toBe('go');
      }

      // [P-8] Nor can the Agent itself: its model calls its own exec tool (which runs as the Agent's
      // user) and its write tool on the new container. `$((6 * 7))` is expanded by the shell, so
      // the marker in the output shows the command really ran.
      const gateway = { port: publishedPort(info, RUNTIME_PORTS.relay), token: gatewayTokenOf(info) };
      const call = (name: string, args: Record<string, unknown>) =>
        callTool(model, gateway, name, args, TURN_MS).catch(async (error: unknown) => {
          // What the runtime said, for whoever reads the failure.
          const logs = (await world.docker.getContainer(newId).logs({ stdout: true, stderr: true, tail: 80 })) as unknown as Buffer;
          console.log(`the runtime's last lines:\n${demuxLog(logs)}`);
          throw error;
        });
      const dir = CONTAINER_PATHS.proceed;
      const shell = await call('exec', { command: `rm -f ${dir}/go 2>&1; touch ${dir}/planted 2>&1; ls -A ${dir}; echo "attack-ran-$((6 * 7))"` });
      console.log(`the Agent's exec tool on the go's directory:\n${shell}`);
      const lines = shell.trim().split('\n');
      const ran = lines.indexOf('attack-ran-42');
      expect(ran, shell).toBeGreaterThan(0);
      expect(shell.match(/Read-only file system/g), shell).toHaveLength(2);
      expect(lines[ran - 1], shell).toBe('go');
      expect(shell).not.toMatch(/^planted$/m);
      // Its write tool is refused before the filesystem is asked (OpenClaw keeps the file tools in
      // the workspace), also through a link to the directory the Agent made there with exec; exec,
      // which has no such rule, met the read-only mount above.
      const written = await call('write', { path: `${dir}/planted-by-write`, content: 'pwned' });
      expect(written).toMatch(/Path escapes sandbox root/);
      expect(written).toContain(`${dir}/planted-by-write`);
      const link = `${CONTAINER_PATHS.stateDir}/workspace/go-link`;
      expect((await call('exec', { command: `ln -sfn ${dir} ${link} 2>&1; ls -A ${link}/` })).trim()).toBe('go');
      expect(await call('write', { path: 'go-link/planted-by-write', content: 'pwned' })).toMatch(/Symlink escapes sandbox root/);
      const after = await exec(newId, ['ls', '-A', dir]);
      expect(after.output.trim().split('\n')).toEqual(['go']);
    },
    2 * DEPLOY_MS + 2 * TURN_MS,
  );

  it(
    '[S-2] a failing candidate, prepared beside the active revision, fails its deploy with the runtime failure code; the pointer stays and the active revision never stopped',
    async () => {
      // The runtime fails it on its own: a Configuration OpenClaw refuses (an unknown top-level key).
      const broken = await request({
        method: 'PATCH',
        url: `/namespaces/${world.base.defaultNamespaceId}/configurations/${target.cfg}`,
        body: { values: { ...values, notAnOpenClawKey: 1 } },
      });
      expect(broken.status, broken.raw).toBe(200);
      const activeStartedAt = (await containerOf(second)).State.StartedAt;
      const candidate = (await admit(t(), target)).id;
      const status = await waitTerminal(t(), target, candidate, DEPLOY_MS);
      expect(status).toMatchObject({ state: 'failed', active: false, error: { code: 'PLUGIN_REGISTRY_REFRESH_FAILED' } });
      expect(await activeRevisionId(t(), target)).toBe(second);
      // Prepared beside revision 2, the candidate failed before its go: revision 2 never stopped.
      expect((await containerOf(second)).State.StartedAt).toBe(activeStartedAt);
      expect(await live(second)).toMatchObject({ running: true, ready: true });
      const stopped = await containerOf(candidate);
      expect(stopped.State.Running).toBe(false);
      expect(await live(candidate)).toMatchObject({ running: false, lastFailureCode: 'PLUGIN_REGISTRY_REFRESH_FAILED' });
    },
    2 * DEPLOY_MS,
  );

  it("deleting the stopped Agent removes every container and the network the engine holds for it (the worker's remove_agent work), audited", async () => {
    const stopped = await request({ method: 'POST', url: `${target.url}/stop` });
    expect(stopped.status, stopped.raw).toBe(202);
    await waitFor(
      'the stop',
      () => activeRevisionId(t(), target),
      (id) => id === null,
      120_000,
      500,
    );
    // Its stopped containers (the active one, a failed candidate) and its network are still there.
    const before = (await containersOf(target.agentId)).map((c) => c.Name.replace(/^\//, ''));
    expect(before.length).toBeGreaterThan(0);
    expect(await networkOf(target.agentId)).not.toBeNull();

    const deleted = await request({ method: 'DELETE', url: target.url });
    expect(deleted.status, deleted.raw).toBe(204);
    const audited = async () =>
      (
        await world.base.database.query<{ outcome: string; details: any }>(
          `SELECT outcome, details FROM audit_events WHERE action = 'agents.compute_removed' AND resource_id = $1`,
          [target.agentId],
        )
      ).rows;
    const [event] = await waitFor('the removal', audited, (rows) => rows.length > 0, 120_000, 500);
    expect(await containersOf(target.agentId)).toEqual([]);
    expect(await networkOf(target.agentId)).toBeNull();
    expect(await world.docker.listNetworks({ filters: { label: labelFilter(world.installation, { agentId: target.agentId }) } })).toEqual([]);
    expect(event!.outcome).toBe('success');
    expect(event!.details).toMatchObject({ computeDriverId: 'docker' });
    const removed = event!.details.removed as { kind: string; name: string }[];
    expect(
      removed
        .filter((r) => r.kind === 'container')
        .map((r) => r.name)
        .sort(),
    ).toEqual([...before].sort());
    expect(removed.filter((r) => r.kind === 'network')).toEqual([{ kind: 'network', name: networkName(world.installation, target.agentId) }]);
  }, 240_000);
});
