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
 *   the direction that takes something away (an MCP server, a hook or an app only switched off);
 *   the features that run code or write files where the app-server runs are switched off in every
 *   thread, whatever the request says;
 * - a thread and a turn get no execution environment (no command, patch or local file read at all);
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
  if (path === 'web_search') return typeof value === 'string' ? null : 'web_search is a mode';
  if (path === 'model_context_window' || path === 'project_doc_max_bytes') return typeof value === 'number' ? null : 'a number';
  if (path === 'suppress_unstable_features_warning' || path === 'include_environment_context') return typeof value === 'boolean' ? null : 'true or false';
  // Only read by commands, which never run here (the shell features are off).
  if (head === 'shell_environment_policy' && second !== undefined) return null;
  return 'not a setting the harness sends';
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
    // The harness sends some paths both as a table and dotted, with one value.
    if (Object.hasOwn(flat, leaf.path) && JSON.stringify(flat[leaf.path]) !== JSON.stringify(leaf.value))
      return { refused: `config ${leaf.path} is given twice, with different values` };
    flat[leaf.path] = leaf.value;
  }
  for (const feature of FEATURES_OFF) flat[`features.${feature}`] = false;
  return { config: flat };
}

/** Thread settings that would let the request choose configuration the gate has not seen. */
// `path`: a resumed or forked thread read from a file the request names; capability roots: plugins
// and skills loaded from directories it names.
const THREAD_PARAMS_REFUSED = ['path', 'selectedCapabilityRoots'];

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
export function gateClientMessage(message: unknown): GateVerdict {
  if (!isObject(message)) return { drop: 'not a JSON-RPC message' };
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const method = typeof message.method === 'string' ? message.method : null;
  // A response to the app-server's own request (an approval, a dynamic tool's result).
  if (method === null) return id === null ? { drop: 'neither a request nor a response' } : { forward: message };
  if (id === null) return PASSING_NOTIFICATIONS.has(method) ? { forward: message } : { drop: `notification ${method}` };
  const refuse = (reason: string): GateVerdict => ({ refuse: { id, method, reason } });
  if (PASSING_METHODS.has(method)) return { forward: message };
  const params = isObject(message.params) ? message.params : {};
  if (THREAD_METHODS.has(method)) {
    const held = THREAD_PARAMS_REFUSED.find((name) => params[name] !== undefined && params[name] !== null && !(Array.isArray(params[name]) && params[name].length === 0));
    if (held !== undefined) return refuse(`${held} is not accepted`);
    const gated = gatedThreadConfig(params.config);
    if ('refused' in gated) return refuse(gated.refused);
    return { forward: { ...message, params: { ...params, config: gated.config, ...noEnvironment(method) } } };
  }
  if (TURN_METHODS.has(method)) {
    const why = inputRefusal(params.input);
    return why === null ? { forward: { ...message, params: { ...params, ...noEnvironment(method) } } } : refuse(why);
  }
  return refuse('the method is not one a turn needs');
}
