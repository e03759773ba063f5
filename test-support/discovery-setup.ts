import { createSpyDiscovery, type SpyDiscovery } from './spy-discovery-driver.ts';
import { spySecretDriver, type SpySecretDriver } from './spy-secret-driver.ts';
import { startTestController, type TestController, type TestControllerOptions, type TestResponse } from './test-controller.ts';
import { adminCreate, buildWorld, grant, type World } from './world.ts';

/** A test controller whose discovery and SecretDriver are spies, with a world to discover in. */
export interface DiscoverySetup {
  t: TestController;
  w: World;
  openclaw: SpyDiscovery;
  codex: SpyDiscovery;
  secrets: SpySecretDriver;
  /** Forgets recorded calls and reads, and every script and hook. */
  reset(): void;
  /** Driver calls and Secret reads since the last reset: what a refused request must leave at zero. */
  io(): { driverCalls: number; secretReads: number };
  post(url: string, body: unknown, key?: string): Promise<TestResponse>;
  /** Grants an Agent's own service principal `secret:operate` on one Secret. */
  grantAgentOperate(ns: string, agentId: string, secretId: string): Promise<string>;
}

export async function startDiscoveryController(options: TestControllerOptions = {}): Promise<DiscoverySetup> {
  const openclaw = createSpyDiscovery('none');
  const codex = createSpyDiscovery('codex_pat');
  let secrets: SpySecretDriver | undefined;
  const t = await startTestController({
    ...options,
    discovery: { openclaw, codex, ...options.discovery },
    secrets: (inner) => (secrets = spySecretDriver(inner)),
  });
  const w = await buildWorld(t);
  const spy = secrets!;
  return {
    t,
    w,
    openclaw,
    codex,
    secrets: spy,
    reset() {
      for (const d of [openclaw, codex]) {
        d.calls.length = 0;
        d.script = null;
      }
      spy.reads.length = 0;
      spy.beforeUse = null;
      spy.unavailable = false;
    },
    io: () => ({ driverCalls: openclaw.calls.length + codex.calls.length, secretReads: spy.reads.length }),
    post: (url, body, key) => t.request({ method: 'POST', url, body, ...(key ? { key } : {}) }),
    async grantAgentOperate(ns, agentId, secretId) {
      const agent = (await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${agentId}` })).body.data;
      return grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secretId } });
    },
  };
}

/** A codex Agent in `ns` bound to `secretId` (or unbound), for races and grants of its own. */
export async function codexAgent(t: TestController, ns: string, configurationId: string, name: string, secretId?: string): Promise<{ id: string; servicePrincipalId: string }> {
  return adminCreate(t, `/namespaces/${ns}/agents`, {
    name,
    configurationId,
    harness: 'codex',
    ...(secretId ? { harnessAuth: { method: 'codex_pat', secretId } } : {}),
  });
}
