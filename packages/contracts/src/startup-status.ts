import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema } from './common.ts';
import { POLICY_VIOLATION_CODES } from './plugin-map.ts';
import { DEPLOYMENT_STEP_NAMES, PLUGIN_INSTALL_RESULTS } from './resources/deployment-events.ts';
import { PluginWarningSchema } from './resources/revision.ts';

/**
 * What a revision's runtime publishes on its private startup-status endpoint
 * (`GET /startup-status` on loopback, `Authorization: Bearer <token derived per revision>`).
 * Compute trusts it only when the revision id and startup id match the process it started,
 * and only warnings for the revision's admitted selection keys with a closed code count.
 * `prepared`: installed and verified beside the Agent's serving gateway, waiting for the driver's
 * go (`POST /proceed`) before it changes the Agent's state and starts its own gateway.
 */
export const STARTUP_PHASES = ['preparing', 'prepared', 'ready', 'failed'] as const;
export type StartupPhase = (typeof STARTUP_PHASES)[number];

const NativeName = Type.String({ minLength: 1, maxLength: 128 });

/**
 * What the serving gateway itself said it runs, read back after it started: every plugin (with the
 * tools it gives the agent; none for providers and channels), OpenClaw's own tools before the
 * Configuration's tool policy, and its enabled scheduled jobs.
 */
export const LoadedRuntimeSchema = Closed({
  plugins: Type.Array(Closed({ id: NativeName, tools: Type.Array(NativeName, { maxItems: 256 }) }), { maxItems: 512 }),
  coreTools: Type.Array(NativeName, { maxItems: 512 }),
  scheduledJobs: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 256 }),
});
export type LoadedRuntime = Static<typeof LoadedRuntimeSchema>;

/**
 * What a failed startup says about the selection that failed it, beyond its code: the selection
 * key and the policy violation (its closed code and where in the selection, a JSON pointer; `''`
 * is the selection itself). Only a selection of the revision is ever named; the controller words
 * it itself, so no runtime text reaches stored status.
 */
export const StartupFailureDetailSchema = Closed({
  plugin: Type.String({ minLength: 1, maxLength: 253 }),
  violation: Closed({
    code: Type.Union(POLICY_VIOLATION_CODES.map((c) => Type.Literal(c))),
    at: Type.String({ maxLength: 512, pattern: '^(/.*)?$' }),
  }),
});
export type StartupFailureDetail = Static<typeof StartupFailureDetailSchema>;

const BridgePluginSchema = Closed({
  enabled: Type.Boolean(),
  marketplaceName: Type.String({ minLength: 1, maxLength: 128 }),
  pluginName: Type.String({ minLength: 1, maxLength: 128 }),
  allow_destructive_actions: Type.Union([Type.Literal(false), Type.Literal('auto')]),
});

/**
 * What a Codex app-server runtime (role `app-server`) publishes for its gateway (role `gateway`)
 * once its peer startup is prepared: the app-server's port (on the peer's address) and the plugin
 * bridge rendered from the selections it installed and excluded. The credential is not here: the
 * gateway derives it from the transport Secret, the revision and this status's startupId ([G-6]).
 */
export const CodexPeerSchema = Closed({
  appServerPort: Type.Integer({ minimum: 1, maximum: 65535 }),
  codexPlugins: Closed({
    enabled: Type.Boolean(),
    allow_all_plugins: Type.Literal(false),
    plugins: Type.Record(Type.String({ minLength: 1, maxLength: 253 }), BridgePluginSchema, { maxProperties: 256 }),
  }),
});
export type CodexPeer = Static<typeof CodexPeerSchema>;

/** At most this many progress entries in one status: a runtime that restarts its gateway without end reports its first ones. */
export const RUNTIME_PROGRESS_MAX = 256;

/**
 * One step of a startup as the runtime reports it, in closed terms and the same fields for every
 * harness: a finished step (`step`, from the deployment step names), one selection's install
 * (`step: 'install'`, the selection key as `pluginId`, its `result`), the gateway serving
 * (`step: 'gateway'`), or the startup failing (`code`, no step). `at`: the runtime's clock.
 */
export const RuntimeProgressStepSchema = Closed({
  at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$' }),
  step: Type.Optional(Type.Union(DEPLOYMENT_STEP_NAMES.map((name) => Type.Literal(name)))),
  pluginId: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
  result: Type.Optional(Type.Union(PLUGIN_INSTALL_RESULTS.map((result) => Type.Literal(result)))),
  code: Type.Optional(Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$' })),
});
export type RuntimeProgressStep = Static<typeof RuntimeProgressStepSchema>;

export const StartupStatusSchema = Closed({
  revisionId: IdSchema('agent_revision'),
  /** Fresh random id per runtime process start. */
  startupId: Type.String({ minLength: 16, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  phase: Type.Union(STARTUP_PHASES.map((p) => Type.Literal(p))),
  /** Selection keys installed, verified and enabled. */
  plugins: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 256 }),
  /** Selections disabled before startup, with a closed warning code. */
  failures: Type.Array(PluginWarningSchema, { maxItems: 256 }),
  /** The gateway's loopback port once it was started (phase ready). */
  gatewayPort: Type.Union([Type.Integer({ minimum: 1, maximum: 65535 }), Type.Null()]),
  /** Why startup failed (phase failed): a fixed code and sentence, never tool output or secrets. */
  error: Type.Union([
    Closed({ code: Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$' }), message: Type.String({ maxLength: 256 }), detail: Type.Optional(StartupFailureDetailSchema) }),
    Type.Null(),
  ]),
  /** What the gateway said it runs (phase ready, OpenClaw harness); absent where it is not read back (Codex). */
  loaded: Type.Optional(LoadedRuntimeSchema),
  /** A Codex app-server runtime's peer status (phase ready); absent on every other runtime. */
  codexPeer: Type.Optional(CodexPeerSchema),
  /** This startup's steps so far, oldest first (deployment events are made of them); absent from runtimes older than it. */
  progress: Type.Optional(Type.Array(RuntimeProgressStepSchema, { maxItems: RUNTIME_PROGRESS_MAX })),
});
export type StartupStatus = Static<typeof StartupStatusSchema>;
