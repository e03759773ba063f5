import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, TimestampSchema } from '../common.ts';
import { RUNTIME_FAILURE_CODES, STORED_REASON_CODES } from '../work-outcomes.ts';
import { PLUGIN_WARNING_CODES } from './revision.ts';

/**
 * Bounds of one `GET …/deployments/:rev/events` connection. When one is reached the server ends
 * the stream; an EventSource reconnects with `Last-Event-ID` and resumes where it stopped.
 */
export const DEPLOYMENT_EVENTS_MAX_MS = 10 * 60_000;
export const DEPLOYMENT_EVENTS_MAX_EVENTS = 500;
/** A `: keep-alive` comment this often, so proxies keep an idle stream open. */
export const DEPLOYMENT_EVENTS_KEEPALIVE_MS = 15_000;

/**
 * The startup steps the runtime reports, grouped as a person follows a deploy. A runtime step
 * name outside this list is not forwarded.
 */
export const DEPLOYMENT_STEP_PHASES = {
  'read-config': 'plan',
  'read-plugins': 'plan',
  plan: 'plan',
  'write-config': 'plan',
  'detect-install-flags': 'install',
  install: 'install',
  'read-tool-inventory': 'refresh',
  'restore-config': 'refresh',
  'registry-refresh': 'refresh',
  'uninstall-stale': 'refresh',
  'link-skills': 'refresh',
  'verify-installs': 'verify',
  'verify-config': 'verify',
  gateway: 'gateway',
} as const;
export type DeploymentStepName = keyof typeof DEPLOYMENT_STEP_PHASES;
export const DEPLOYMENT_STEP_NAMES = Object.keys(DEPLOYMENT_STEP_PHASES) as DeploymentStepName[];
export const DEPLOYMENT_PHASES = ['plan', 'install', 'refresh', 'verify', 'gateway'] as const;
/** What one plugin's install came to (`rejected`/`unreachable` become warnings or a failure). */
export const PLUGIN_INSTALL_RESULTS = ['done', 'rejected', 'unreachable'] as const;
export type PluginInstallResult = (typeof PLUGIN_INSTALL_RESULTS)[number];
export const DEPLOYMENT_EVENT_TYPES = ['admitted', 'claimed', 'step', 'warning', 'succeeded', 'failed', 'superseded', 'stopped'] as const;
export type DeploymentEventType = (typeof DEPLOYMENT_EVENT_TYPES)[number];

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

/**
 * The JSON `data:` of one event. Only ids, counts, step names and closed codes: never a value
 * of the Configuration, a Secret, a message or a line of runtime output.
 * - `admitted`: the revision was admitted (`at` its creation).
 * - `claimed`: a worker started attempt `attempt` (an attempt that spends the retry budget).
 * - `step`: the runtime finished a startup step (`pluginId`/`result` for one plugin's install;
 *   `gateway` once its gateway started); `code` when that start failed (a runtime failure code).
 * - `warning`: a plugin warning of this deploy (closed codes).
 * - `succeeded` / `failed` / `superseded` / `stopped`: the outcome, with its reason code; the stream ends.
 */
export const DeploymentEventDataSchema = Closed(
  {
    type: literals(DEPLOYMENT_EVENT_TYPES),
    revisionId: IdSchema('agent_revision'),
    at: Type.Optional(TimestampSchema),
    revision: Type.Optional(Type.Integer({ minimum: 1 })),
    attempt: Type.Optional(Type.Integer({ minimum: 1 })),
    phase: Type.Optional(literals(DEPLOYMENT_PHASES)),
    step: Type.Optional(literals(DEPLOYMENT_STEP_NAMES)),
    pluginId: Type.Optional(Type.String({ maxLength: 256 })),
    result: Type.Optional(literals(PLUGIN_INSTALL_RESULTS)),
    code: Type.Optional(Type.Union([literals(PLUGIN_WARNING_CODES), literals(STORED_REASON_CODES), literals(RUNTIME_FAILURE_CODES)])),
    reasonCode: Type.Optional(literals(STORED_REASON_CODES)),
  },
  { description: 'One Server-Sent Event: `id:` (a resumable cursor), `event:` (= `type`) and this JSON as `data:`.' },
);
export type DeploymentEventData = Static<typeof DeploymentEventDataSchema>;
