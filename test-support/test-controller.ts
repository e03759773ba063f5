import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { composeController, type ComposedController } from '../apps/controller/src/composition/compose.ts';
import type { PluginDriverSelection } from '../apps/controller/src/composition/plugin-drivers.ts';
import { bootstrapInstallation } from '../apps/controller/src/core/use-cases/installation.ts';
import type { Database } from '../apps/controller/src/state/database.ts';
import { createTestDatabase } from './test-database.ts';
import { createScriptedCompute } from './scripted-compute.ts';
import type { ComputeDriver } from '../apps/controller/src/core/ports/compute-driver.ts';
import type { WorkSettings } from '../apps/controller/src/core/deps.ts';
import { HARNESSES, type Harness } from '@occ/contracts';
import type { PluginDiscovery } from '../apps/controller/src/core/ports/plugin-driver.ts';
import type { SecretDriver } from '../apps/controller/src/core/ports/secret-driver.ts';
import { scriptedDiscoveries } from './spy-discovery-driver.ts';

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
  raw: string;
}

export interface TestController {
  app: FastifyInstance;
  controller: ComposedController;
  database: Database;
  adminKey: string;
  defaultNamespaceId: string;
  /** Every log line the controller wrote (pino JSON), for leak checks. */
  logs: string[];
  request(options: { method: InjectOptions['method']; url: string; key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestControllerOptions {
  pluginDrivers?: PluginDriverSelection;
  bodyLimit?: number;
  /** Default: a scripted driver that is ready at once. `null`: no ComputeDriver (deploys → 501). */
  compute?: ComputeDriver | null;
  work?: Partial<WorkSettings>;
  /** Authentication cache lifetime (default: the production default). */
  authCacheMs?: number;
  /** Run the in-process reconcile worker (default: no worker, so tests drive the queue). */
  worker?: false | { leaseMs?: number; pollMs?: number; convergencePollMs?: number; ensureActiveMs?: number };
  /**
   * The catalog discovery of each harness's PluginDriver. Default: an offline scripted catalog
   * (test-support/spy-discovery-driver.ts), like the scripted compute; `null` removes it (→ 501).
   */
  discovery?: Partial<Record<Harness, PluginDiscovery | null>>;
  /** Wraps the SecretDriver, e.g. with a spy (test-support/spy-secret-driver.ts). */
  secrets?: (driver: SecretDriver) => SecretDriver;
  /** The controller's secret key (default: a random one); a test that restarts OCC keeps it. */
  secretKey?: Buffer;
  /** Turns the metrics listener on at this address (`127.0.0.1:0`: any free port; `controller.metrics.url`). */
  metricsAddress?: string;
}

/** A bootstrapped controller on its own database (PGlite or a private PostgreSQL schema). */
export async function startTestController(options: TestControllerOptions = {}): Promise<TestController> {
  const { db, cleanup } = await createTestDatabase();
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const controller = await composeController({
    database: db,
    secretKey: options.secretKey ?? randomBytes(32),
    logger: { level: 'trace', stream },
    ...(options.pluginDrivers ? { pluginDrivers: options.pluginDrivers } : {}),
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    ...(options.compute === null ? {} : { compute: options.compute ?? createScriptedCompute() }),
    ...(options.work ? { work: options.work } : {}),
    ...(options.authCacheMs !== undefined ? { authCacheMs: options.authCacheMs } : {}),
    // The periodic check of the active revisions is off unless a test asks (its effects are the test's to count).
    worker: options.worker ? { settings: { ensureActiveMs: 0, ...options.worker }, backoff: { baseMs: 50, capMs: 500 } } : false,
    ...(options.metricsAddress !== undefined ? { metricsAddress: options.metricsAddress } : {}),
  });
  const discoveries = { ...scriptedDiscoveries(), ...options.discovery };
  for (const harness of HARNESSES) {
    const driver = controller.deps.pluginDrivers[harness];
    if (!driver) continue;
    const discovery = discoveries[harness];
    controller.deps.pluginDrivers[harness] = {
      id: driver.id,
      harness,
      policyCapabilities: driver.policyCapabilities,
      validatePolicies: (plugins, approvers) => driver.validatePolicies(plugins, approvers),
      // The dry run's native preview and the save-time catalog check are the real driver's (they do no I/O).
      ...(driver.previewNativeConfiguration ? { previewNativeConfiguration: driver.previewNativeConfiguration.bind(driver) } : {}),
      ...(driver.uncataloguedSelections ? { uncataloguedSelections: driver.uncataloguedSelections.bind(driver) } : {}),
      ...(discovery ? { discovery } : {}),
    };
  }
  if (options.secrets) controller.deps.secrets = options.secrets(controller.deps.secrets);
  // A deployment event stream of a deploy no worker runs ends after 300 ms, not 10 min (route-wide tests call every route).
  controller.deps.eventStreams = { maxMs: 300, pollMs: 50 };
  const boot = await bootstrapInstallation(controller.deps);
  if (!boot.created) throw new Error('test database was already bootstrapped');
  const { app } = controller;
  return {
    app,
    controller,
    database: db,
    adminKey: boot.adminKey,
    defaultNamespaceId: boot.defaultNamespaceId,
    logs,
    async request({ method, url, key, body, headers }) {
      const auth = key === null ? {} : { authorization: `Bearer ${key ?? boot.adminKey}` };
      const res = await app.inject({
        method,
        url,
        headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      let parsed: unknown;
      try {
        parsed = res.body ? JSON.parse(res.body) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.statusCode, headers: res.headers, body: parsed, raw: res.body };
    },
    async close() {
      await controller.close();
      await cleanup();
    },
  };
}
