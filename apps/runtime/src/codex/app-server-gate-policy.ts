/**
 * What the gateway may ask of its dedicated app-server (docs/security.md, "The app-server obeys
 * the gateway only as far as a turn needs"). The gateway is the Agent's own process: its tools run
 * as its user beside it and can read its credential, so whatever the gateway may send, the Agent
 * may send. The app-server is where the codex_pat lives (on docker and kubernetes a container of
 * its own), so nothing sent to it may run code or read files there, or change what it serves:
 *
 * - only the methods a turn needs pass (reads, threads, turns); running commands, file access,
 *   configuration writes, plugin and marketplace installs, sign-in changes are refused;
 * - a thread's configuration may only carry the settings OpenClaw's harness sends, and only in
 *   the direction that takes something away (a feature, a tool, an MCP server, a hook or an app
 *   only switched off: a `true` becomes `false`); the features that run code, write files or start
 *   turns by themselves are off in every thread, whatever the request says;
 * - every thread and turn runs read-only with no approvals to ask (a resumed thread, a forked one
 *   and the turns Codex starts by itself included), and a new thread or turn gets no execution
 *   environment (no command, patch or local file read at all);
 * - a directory a request names (a working directory, the directories to list skills, hooks or
 *   plugins in, a marketplace) lies in the Agent's own roots;
 * - a turn's input is text or an image by URL: no item that names a file of the app-server's.
 */

/** Requests that pass unchanged: reads, and the conversation itself. */
const PASSING_METHODS = new Set([
  'initialize',
  'account/read',
  'account/rateLimits/read',
  'config/read',
  'configRequirements/read',
  'model/list',
  'modelProvider/capabilities/read',
  'experimentalFeature/list',
  'skills/list',
  'hooks/list',
  'plugin/list',
  'plugin/read',
  'plugin/installed',
  'app/list',
  'app/read',
  'app/installed',
  'mcpServerStatus/list',
  'thread/read',
  'thread/list',
  'thread/loaded/list',
  'thread/turns/list',
  'thread/inject_items',
  'thread/unsubscribe',
  'thread/archive',
  'thread/unarchive',
  'thread/delete',
  'thread/name/set',
  'thread/metadata/update',
  'thread/rollback',
  'thread/compact/start',
  'thread/backgroundTerminals/list',
  'thread/backgroundTerminals/terminate',
  'turn/interrupt',
]);

/** Requests that carry a thread's configuration: checked and held to the restrictions below. */
const THREAD_METHODS = new Set(['thread/start', 'thread/resume', 'thread/fork']);
const TURN_METHODS = new Set(['turn/start', 'turn/steer']);
/** Where a request may choose the thread's execution environments: always none (Codex's "empty disables environment access"). */
const ENVIRONMENT_METHODS = new Set(['thread/start', 'turn/start']);

/** Notifications a client sends (the handshake's last step). */
const PASSING_NOTIFICATIONS = new Set(['initialized']);

/**
 * Codex features that run code, or read or write files, where the app-server runs (its shell, its
 * JavaScript, apply_patch, hooks, image viewing, browser and computer control, dependency installs): off in every
 * thread. OpenClaw's tools (the gateway's, run in the gateway's own process and container) are what
 * an Agent runs; this is already the harness's own choice under OCC's governance.
 */
export const FEATURES_OFF = [
  'shell_tool',
  'unified_exec',
  'apply_patch_freeform',
  'code_mode',
  'code_mode_only',
  'js_repl',
  'hooks',
  'codex_hooks',
  'artifact',
  'browser_use',
  'browser_use_external',
  'browser_use_full_cdp_access',
  'computer_use',
  'workspace_dependencies',
  'request_permissions_tool',
  // Reads an image file by the path the model names, on the app-server's disk.
  'view_image',
  // Start turns by themselves (a goal's continuation, a sub-agent), outside any request the gate saw.
  'goals',
  'multi_agent',
  'multi_agent_v2',
  'deferred_executor',
  // Write files of their own (memories), install dependencies, record the screen.
  'memories',
  'skill_mcp_dependency_install',
  'chronicle',
] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Leaf = { path: string; value: Json };

const isObject = (value: unknown): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One configuration leaf the harness may send, judged by its dotted path (null: allowed). */
function leafRefusal({ path, value }: Leaf): string | null {
  const [head, second] = path.split('.');
  const offOnly = value === false;
  if (head === 'features') return typeof value === 'boolean' ? null : 'a feature is true or false';
  if (head === 'hooks') return Array.isArray(value) && value.length === 0 ? null : 'hooks may only be emptied';
  if (path === 'notify') return Array.isArray(value) && value.length === 0 ? null : 'notify may only be emptied';
  if (head === 'mcp_servers') return path.endsWith('.enabled') && path.split('.').length === 3 && offOnly ? null : 'an MCP server may only be switched off';
  if (head === 'apps')
    return /\.(enabled|destructive_enabled|open_world_enabled)$/.test(path) && path.split('.').length === 3 && offOnly ? null : 'an app may only be switched off';
  // Skills read from paths a request names would be files of the app-server's read into the turn.
  if (path === 'skills.config') return Array.isArray(value) && value.length === 0 ? null : 'skills may only be emptied';
  if (['orchestrator', 'skills', 'tools', 'agents'].includes(head!))
    return path.endsWith('.enabled') || path === 'skills.include_instructions'
      ? typeof value === 'boolean'
        ? null
        : 'a switch is true or false'
      : 'not a setting the harness sends';
  // Web search runs at the model provider, not where the app-server runs.
  if (path === 'web_search') return typeof value === 'string' ? null : 'web_search is a mode';
  if (path === 'model_context_window' || path === 'project_doc_max_bytes') return typeof value === 'number' ? null : 'a number';
  if (path === 'suppress_unstable_features_warning' || path === 'include_environment_context') return typeof value === 'boolean' ? null : 'true or false';
  // Only read by commands, which never run here (no execution environment, the shell features off).
  if (head === 'shell_environment_policy' && second !== undefined) return null;
  return 'not a setting the harness sends';
}

/** A switch may only take something away: a feature, a tool, an orchestrator or an agent switch that asks for `true` gets `false`. */
function onlyOff({ path, value }: Leaf): Json {
  const isSwitch = path.startsWith('features.') || (/^(orchestrator|skills|tools|agents)\./.test(path) && (path.endsWith('.enabled') || path === 'skills.include_instructions'));
  return isSwitch && value === true ? false : value;
}

/** Every leaf of a configuration override (dotted keys and nested tables alike; an empty table sets nothing), arrays kept whole. */
function leaves(config: Record<string, Json>, prefix = ''): Leaf[] {
  return Object.entries(config).flatMap(([key, value]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return isObject(value) ? leaves(value, path) : [{ path, value }];
  });
}

/**
 * The configuration a thread request may carry, rewritten as dotted keys (one value per path, so
 * no later table can undo a forced setting) with the code-running features off; or why not.
 */
export function gatedThreadConfig(config: unknown): { config: Record<string, Json> } | { refused: string } {
  if (config !== undefined && config !== null && !isObject(config)) return { refused: 'config is not an object' };
  const flat: Record<string, Json> = {};
  for (const leaf of leaves(isObject(config) ? config : {})) {
    const feature = leaf.path.startsWith('features.') ? leaf.path.split('.')[1] : undefined;
    // A forced feature's own sub-settings (code_mode's namespaces) go: the feature is off.
    if (feature !== undefined && (FEATURES_OFF as readonly string[]).includes(feature)) continue;
    const why = leafRefusal(leaf);
    if (why !== null) return { refused: `config ${leaf.path}: ${why}` };
    const value = onlyOff(leaf);
    // The harness sends some paths both as a table and dotted, with one value.
    if (Object.hasOwn(flat, leaf.path) && JSON.stringify(flat[leaf.path]) !== JSON.stringify(value))
      return { refused: `config ${leaf.path} is given twice, with different values` };
    flat[leaf.path] = value;
  }
  for (const feature of FEATURES_OFF) flat[`features.${feature}`] = false;
  return { config: flat };
}

/**
 * Parameters that would read what the gate has not seen: `path`, a resumed or forked thread read
 * from a file the request names; capability roots, plugins and skills loaded from directories it
 * names; `perCwdExtraUserRoots`, skills listed from them.
 */
const PARAMS_REFUSED = ['path', 'selectedCapabilityRoots', 'perCwdExtraUserRoots'];
/** Parameters that name a directory of the app-server's: each must lie in the Agent's roots. */
const DIRECTORY_PARAMS = ['cwd', 'cwds', 'marketplacePath', 'configCwd'];

/** The Agent's own directories where the app-server runs (its state, its CODEX_HOME, its marketplaces). */
export interface GateContext {
  roots: readonly string[];
}

const within = (path: string, roots: readonly string[]) =>
  path.startsWith('/') && !path.split('/').includes('..') && roots.some((root) => path === root || path.startsWith(`${root.replace(/\/$/, '')}/`));

function paramsRefusal(params: Record<string, Json>, context: GateContext): string | null {
  const held = PARAMS_REFUSED.find((name) => params[name] !== undefined && params[name] !== null && !(Array.isArray(params[name]) && params[name].length === 0));
  if (held !== undefined) return `${held} is not accepted`;
  for (const name of DIRECTORY_PARAMS) {
    const value = params[name];
    if (value === undefined || value === null) continue;
    const paths = Array.isArray(value) ? value : [value];
    if (paths.some((path) => typeof path !== 'string' || !within(path, context.roots))) return `${name} names a directory outside the Agent's own`;
  }
  return null;
}

/**
 * Read-only, no approval to ask, no permission profile or workspace roots of its own choosing: a
 * resumed or forked thread keeps the environment it had, and a goal's or a sub-agent's turns are
 * started by Codex, so the sandbox is what holds those (measured: a resumed thread got the local
 * environment back, and a patch was then "rejected: writing is blocked by read-only sandbox").
 * A thread names its sandbox by mode, a turn by policy.
 */
function held(params: Record<string, Json>, sandbox: Record<string, Json>): Record<string, Json> {
  const { permissions: _permissions, runtimeWorkspaceRoots: _roots, ...rest } = params;
  return { ...rest, ...sandbox, approvalPolicy: 'never' };
}

/** A turn's input: text, or an image by URL (never a local path, a skill file or a mention of one). */
function inputRefusal(input: unknown): string | null {
  if (input === undefined) return null;
  if (!Array.isArray(input)) return 'input is not a list';
  for (const item of input) {
    const type = isObject(item) ? item.type : undefined;
    if (type !== 'text' && type !== 'image') return `input item of type ${JSON.stringify(type ?? null)} is not text or an image by URL`;
  }
  return null;
}

/**
 * No execution environment: Codex runs no command, applies no patch and reads no local file for the
 * thread or the turn, whatever its features say. The harness asks for none itself under OCC's governance.
 */
const noEnvironment = (method: string) => (ENVIRONMENT_METHODS.has(method) ? { environments: [] } : {});

export type GateVerdict =
  /** Send this (maybe rewritten) message on. */
  | { forward: unknown }
  /** Answer the client with this JSON-RPC error instead; `method` names what was refused for the log. */
  | { refuse: { id: string | number | null; method: string; reason: string } }
  /** Neither forward nor answer (an unknown notification). */
  | { drop: string };

/** The gate's decision on one message from the gateway. */
export function gateClientMessage(message: unknown, context: GateContext): GateVerdict {
  if (!isObject(message)) return { drop: 'not a JSON-RPC message' };
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const method = typeof message.method === 'string' ? message.method : null;
  // A response to the app-server's own request (an approval, a dynamic tool's result).
  if (method === null) return id === null ? { drop: 'neither a request nor a response' } : { forward: message };
  if (id === null) return PASSING_NOTIFICATIONS.has(method) ? { forward: message } : { drop: `notification ${method.slice(0, 100)}` };
  const refuse = (reason: string): GateVerdict => ({ refuse: { id, method, reason } });
  const known = PASSING_METHODS.has(method) || THREAD_METHODS.has(method) || TURN_METHODS.has(method);
  if (!known) return refuse('the method is not one a turn needs');
  // Codex also takes positional parameters (an array), which no check here reads: only an object or none.
  if (message.params !== undefined && message.params !== null && !isObject(message.params)) return refuse('params is not an object');
  const params = isObject(message.params) ? message.params : {};
  const why = paramsRefusal(params, context);
  if (why !== null) return refuse(why);
  if (PASSING_METHODS.has(method)) return { forward: message };
  if (THREAD_METHODS.has(method)) {
    const gated = gatedThreadConfig(params.config);
    if ('refused' in gated) return refuse(gated.refused);
    return { forward: { ...message, params: { ...held(params, { sandbox: 'read-only' }), config: gated.config, ...noEnvironment(method) } } };
  }
  const input = inputRefusal(params.input);
  if (input !== null) return refuse(input);
  return { forward: { ...message, params: method === 'turn/start' ? { ...held(params, { sandboxPolicy: { type: 'readOnly' } }), ...noEnvironment(method) } : params } };
}
