import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demuxLog } from '../../src/drivers/compute/docker/container-log.ts';
import { networkName } from '../../src/drivers/compute/docker/container-spec.ts';
import { RUNTIME_PORTS } from '../../src/drivers/compute/docker/runtime-ports.ts';
import { probeGatewayReady } from '@occ/runtime/gateway-probe';
import { admit, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { connectProbeCommand, parseConnectProbe } from '../../../../test-support/docker/connect-probe.ts';
import { gatewayTokenOf, publishedPort, startDockerWorld, type DockerWorld } from '../../../../test-support/docker/docker-world.ts';
import { portsListeningOn } from '../../../../test-support/docker/host-listeners.ts';
import { hostAddress, relayToAgents, type HostRelay } from '../../../../test-support/docker/host-relay.ts';
import { FIXTURE_PLUGINS } from '../../../../test-support/npm-registry.ts';
import { callTool, scriptedModelConfiguration } from '../../../../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../test-support/scripted-model-server.ts';
import { testDatabaseUrl } from '../../../../test-support/vitest/database-templates.ts';

// Two Agents on the docker ComputeDriver (real engine, real runtime image), each on a network of
// its own: an attacker a scripted model drives (the fixture plugin selected) and
// a bystander with no plugin. What the attacker reaches, by its shell and through its tools; then
// how the bystander's container comes back: the engine restarting a runtime that died, an OCC
// restart leaving it be, a container an older OCC left on the host's network made again. The
// hardened container, Recreate, a failing candidate and deletion: docker-deploy.test.ts.
const DEPLOY_MS = 300_000;
const GOOD = FIXTURE_PLUGINS.good;
const canary = `docker-canary-${randomBytes(12).toString('hex')}`;

let world: DockerWorld;
let model: ScriptedModelServer;
let modelRelay: HostRelay;
/** OCC's API on a real port of the host's loopback, where `occ up` serves it by default. */
let api: URL;
let attacker: DeployTarget;
let attackerRevision: string;
let other: DeployTarget;
let otherRevision: string;
const t = () => world.t();
const containerOf = (revisionId: string) => world.containerOf(revisionId);

beforeAll(async () => {
  world = await startDockerWorld();
  model = await startScriptedModelServer();
  // The model provider is reached the way an operator's would be: through the Agent network's route out.
  modelRelay = await relayToAgents(model.baseUrl, world.subnets);
}, 900_000);

afterAll(async () => {
  await modelRelay?.close();
  await model?.close();
  await world?.close();
}, 120_000);

describe('what an Agent on the docker ComputeDriver reaches, and how its container comes back', () => {
  it(
    'deploys two Agents, each on a network of its own: the attacker (a scripted model, the fixture plugin) and a bystander (no plugin)',
    async () => {
      writeFileSync(join(world.root, 'admin-api-key'), `${canary}-admin\n`, { mode: 0o600 });
      // One after the other, each within its own deploy time: two prepares at once in one
      // container engine under CI load took longer than DEPLOY_MS, and would save no CPU.
      attacker = await newDeployTarget(t(), {
        plugins: { [`openclaw:${GOOD.package}`]: { enabled: true } },
        values: scriptedModelConfiguration(model, { baseUrl: modelRelay.url }),
      });
      attackerRevision = (await admit(t(), attacker)).id;
      expect(await waitTerminal(t(), attacker, attackerRevision, DEPLOY_MS)).toMatchObject({ state: 'succeeded' });
      // A second Agent (no plugin: only its gateway matters here).
      other = await newDeployTarget(t(), { plugins: {}, values: { tools: { profile: 'coding' } } });
      otherRevision = (await admit(t(), other)).id;
      expect(await waitTerminal(t(), other, otherRevision, DEPLOY_MS)).toMatchObject({ state: 'succeeded', active: true });
      api = new URL(await world.current().app.listen({ host: '127.0.0.1', port: 0 }));
    },
    2 * DEPLOY_MS,
  );

  it(
    "an Agent's shell reaches neither OCC's API, PostgreSQL, nor another Agent's gateway and status ports; the controller still reads each Agent's status and the gateways serve",
    async () => {
      const mine = await containerOf(attackerRevision);
      const theirs = await containerOf(otherRevision);
      expect(theirs.HostConfig.NetworkMode).toBe(networkName(world.installation, other.agentId));
      expect((await world.networkOf(other.agentId))!.Id).not.toBe((await world.networkOf(attacker.agentId))!.Id);

      const postgres = new URL(testDatabaseUrl());
      const theirPorts = [publishedPort(theirs, RUNTIME_PORTS.status), publishedPort(theirs, RUNTIME_PORTS.relay)];
      const myNet = mine.NetworkSettings.Networks[networkName(world.installation, attacker.agentId)]!;
      const theirIp = theirs.NetworkSettings.Networks[networkName(world.installation, other.agentId)]!.IPAddress;
      // The host as an Agent can address it: its (own) loopback, the bridge's gateway, the host's address.
      const hostAddresses = ['127.0.0.1', myNet.Gateway, hostAddress()];
      const candidates = [
        ...hostAddresses.flatMap((host) => [api.port, postgres.port || '5432', ...theirPorts].map((port) => `${host}:${port}`)),
        // The other Agent's container itself, on its own network: status, relay, gateway.
        ...[RUNTIME_PORTS.status, RUNTIME_PORTS.relay, RUNTIME_PORTS.gateway].map((port) => `${theirIp}:${port}`),
      ];
      // What must still connect, so a probe that could never connect proves nothing: its own status
      // server, and the registry relayed on the host's address (the route out).
      const allowed = [`${myNet.IPAddress}:${RUNTIME_PORTS.status}`, new URL(world.registryRelay.url).host];
      const node = (await world.docker.getImage(world.image).inspect()).Config.Entrypoint![0]!;
      const busyBefore = portsListeningOn(hostAddress());
      const probe = await world.exec(mine.Id, connectProbeCommand(node, [...candidates, ...allowed]));
      // A published port's number may also be held on the host's address by another test file's
      // relay (both come from the ephemeral range; in a clean-clone CI one was): that target
      // reached the relay, not the Agent. The same port stays probed on the loopback and the bridge.
      const busy = new Set([...busyBefore, ...portsListeningOn(hostAddress())]);
      const relayHeld = (where: string) => where.startsWith(`${hostAddress()}:`) && theirPorts.includes(Number(where.split(':')[1])) && busy.has(Number(where.split(':')[1]));
      const forbidden = candidates.filter((where) => !relayHeld(where));
      if (forbidden.length < candidates.length) console.log(`held by a relay on the host's address, not judged there: ${candidates.filter(relayHeld)}`);
      expect(probe.code, probe.output).toBe(0);
      const outcomes = parseConnectProbe(probe.output);
      console.log(`from inside an Agent: ${JSON.stringify(outcomes)}`);
      for (const where of forbidden) expect(outcomes[where], where).toMatch(/^(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|TIMEOUT)$/);
      for (const where of allowed) expect(outcomes[where], where).toBe('CONNECTED');

      // The controller still reads both runtimes' status and their gateways answer on the host's loopback.
      expect(await world.live(attackerRevision, attacker)).toMatchObject({ running: true, ready: true });
      expect(await world.live(otherRevision, other)).toMatchObject({ running: true, ready: true });
      expect(await probeGatewayReady(publishedPort(theirs, RUNTIME_PORTS.relay), gatewayTokenOf(theirs), AbortSignal.timeout(10_000))).toBe(true);
    },
    DEPLOY_MS,
  );

  it(
    'an Agent a scripted model drives cannot read OCC’s keys or files, list the host, or reach OCC’s API and PostgreSQL; its selected tool still runs',
    async () => {
      const info = await containerOf(attackerRevision);
      const gateway = { port: publishedPort(info, RUNTIME_PORTS.relay), token: gatewayTokenOf(info) };
      const call = (name: string, args: Record<string, unknown>) =>
        callTool(model, gateway, name, args, 240_000).catch(async (error: unknown) => {
          // What the runtime said, for whoever reads the failure.
          const logs = (await world.docker.getContainer(info.Id).logs({ stdout: true, stderr: true, tail: 80 })) as unknown as Buffer;
          console.log(`the runtime's last lines:\n${demuxLog(logs)}`);
          throw error;
        });

      const root = world.root;
      for (const path of [join(root, 'admin-api-key'), join(root, 'compute')]) expect(await call('read', { path }), path).not.toContain(canary);
      const postgres = new URL(testDatabaseUrl());
      // The runtime image has no bash or nc: Node it is, with a small heap (the gateway's own memory shares the limit).
      const reachable = new URL(modelRelay.url).host;
      const targets = [`${hostAddress()}:${api.port}`, `${hostAddress()}:${postgres.port || 5432}`, `127.0.0.1:${api.port}`, reachable];
      const script = `for (const w of ${JSON.stringify(targets)}) { const [h, p] = w.split(":"); const s = require("node:net").connect(Number(p), h); s.setTimeout(3000); s.on("connect", () => { console.log("CONNECTED " + w); s.destroy(); }); s.on("error", () => console.log("REFUSED " + w)); s.on("timeout", () => { console.log("REFUSED " + w); s.destroy(); }); }`;
      const probes = `node --max-old-space-size=32 -e '${script}'`;
      const shell = await call('exec', { command: `id -u; ls ${root} 2>&1; cat ${join(root, 'admin-api-key')} 2>&1; ${probes}; echo end-of-probe` });
      expect(shell).toContain('end-of-probe');
      expect(shell).not.toContain(canary);
      expect(shell).toMatch(/^10001$/m);
      expect(shell.match(/^CONNECTED .*$/gm)).toEqual([`CONNECTED ${reachable}`]);
      expect(shell.match(/^REFUSED /gm)).toHaveLength(3);
      expect(shell).toMatch(/No such file or directory/);
      expect(await call('fixture_echo', { input: 'still-governed' })).toContain('still-governed');
    },
    4 * 240_000,
  );

  it(
    'a runtime that dies is restarted by the engine (a new startup, judged again) and an OCC restart leaves it running as it is',
    async () => {
      const before = await world.live(otherRevision, other);
      const info = await containerOf(otherRevision);
      process.kill(info.State.Pid, 'SIGKILL');
      // The restarted container starts from a fresh private area and prepares again: a deploy's
      // work (it ran past 120 s in a loaded clean-clone CI), not a gateway restart.
      const back = await waitFor(
        'the engine restarts it',
        () => world.live(otherRevision, other),
        (v) => v.restarts === 1 && v.ready === true,
        DEPLOY_MS,
        500,
      );
      expect(back.startupId).not.toBe(before.startupId);

      const running = await containerOf(otherRevision);
      await world.restartOcc();
      const after = await containerOf(otherRevision);
      expect(after.Id).toBe(running.Id);
      expect(after.State.StartedAt).toBe(running.State.StartedAt);
      expect(await world.live(otherRevision, other)).toMatchObject({ running: true, ready: true, startupId: back.startupId });
    },
    2 * DEPLOY_MS,
  );

  it(
    "an active revision's container left on the host's network by an OCC before per-Agent networks is made again on the Agent's own when OCC restarts",
    async () => {
      // What such an OCC made: the revision's name, labels and environment (no published ports), the host's network.
      const before = await containerOf(otherRevision);
      await world.docker.getContainer(before.Id).remove({ force: true });
      const env = (before.Config.Env ?? []).filter((e) => !/^(OCC_RUNTIME_STATUS_ADDRESS|OCC_RUNTIME_STATUS_PORT|OCC_RUNTIME_GATEWAY_PORT|OCC_DOCKER_GATEWAY_RELAY)=/.test(e));
      const legacy = await world.docker.createContainer({
        name: before.Name.replace(/^\//, ''),
        Image: before.Config.Image,
        User: before.Config.User,
        Env: env,
        Labels: before.Config.Labels,
        // A stand-in process: what matters is where it runs, not what.
        Entrypoint: ['sleep', '600'],
        HostConfig: { NetworkMode: 'host', ReadonlyRootfs: true, CapDrop: ['ALL'] },
      });
      await legacy.start();

      await world.restartOcc();
      const own = networkName(world.installation, other.agentId);
      const remade = await waitFor(
        'the revision made again on its own network',
        () => containerOf(otherRevision).catch(() => null),
        (c) => c?.HostConfig.NetworkMode === own && c.State.Running === true,
        60_000,
        500,
      );
      expect(remade!.Id).not.toBe(legacy.id);
      expect(
        await waitFor(
          'it to be ready',
          () => world.live(otherRevision, other),
          (v) => v.ready === true,
          180_000,
          1_000,
        ),
      ).toMatchObject({ running: true, ready: true, restarts: 0 });
    },
    DEPLOY_MS,
  );

  it(
    "[K-7][S-2] removed from the engine behind OCC's back (`docker rm -f`), the active revision's container is made again by the worker's periodic check — no deploy, no OCC restart — and serves",
    async () => {
      // This controller checks every 2 s (the test worlds' workers do not check at all: docs/testing.md).
      await world.restartOcc({ ensureActiveMs: 2_000 });
      const serving = await containerOf(otherRevision);
      await world.docker.getContainer(serving.Id).remove({ force: true, v: true });
      const remade = await waitFor(
        'the revision made again',
        () => containerOf(otherRevision).catch(() => null),
        (c) => c !== null && c.Id !== serving.Id && c.State.Running === true,
        60_000,
        500,
      );
      expect(remade!.HostConfig.NetworkMode).toBe(networkName(world.installation, other.agentId));
      expect(
        await waitFor(
          'it to be ready',
          () => world.live(otherRevision, other),
          (v) => v.ready === true,
          DEPLOY_MS - 90_000,
          1_000,
        ),
      ).toMatchObject({
        running: true,
        ready: true,
      });
      // The work that did it: the Agent's one periodic-check item, not a deployment.
      const items = await world.base.database.query<{ kind: string; reason_code: string | null }>(
        `SELECT kind, reason_code FROM work_items WHERE agent_id = $1 AND kind <> 'reconcile_revision'`,
        [other.agentId],
      );
      expect(items.rows.map((r) => r.kind)).toEqual(['ensure_active']);
      // The next test stops the Agent's runtime behind the API's back: no check may bring it back then.
      await world.restartOcc();
    },
    DEPLOY_MS,
  );

  it("an Agent's network goes with its last container; another Agent's stays", async () => {
    const signal = AbortSignal.timeout(60_000);
    await world.driver.stopRevision({ namespaceId: other.ns, agentId: other.agentId }, otherRevision, { signal });
    await world.driver.retireRevision({ namespaceId: other.ns, agentId: other.agentId }, otherRevision, { signal });
    expect(await world.networkOf(other.agentId)).toBeNull();
    expect(await world.networkOf(attacker.agentId)).not.toBeNull();
  }, 120_000);
});
