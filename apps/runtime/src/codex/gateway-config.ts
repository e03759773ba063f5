import { isJsonObject, type PolicyViolation } from '@occ/contracts';
import { pointer, type CodexBridgeConfig } from '@occ/policy';

/** The environment variable the gateway reads the app-server credential from (a SecretInput, never in the file). */
export const APP_SERVER_TOKEN_VARIABLE = 'OCC_CODEX_APP_SERVER_TOKEN';

export interface CodexGatewayInput {
  /** The Configuration's values: the operator's OpenClaw configuration, never modified. */
  base: Record<string, unknown>;
  bridge: CodexBridgeConfig;
  /** The dedicated app-server of this peer startup. */
  appServerUrl: string;
}

const clone = <T>(value: T): T => structuredClone(value);
const objectAt = (value: unknown): Record<string, unknown> => (isJsonObject(value) ? value : {});

/**
 * What in the operator's configuration would stop the Codex harness or widen the bridge: the
 * plugin system off, `codex` denied or left out of a non-empty allowlist, or a bridge or an
 * app-server transport of its own. Each is a conflict that fails the startup (like OpenClaw's
 * `findOpenClawConflicts`), never something the runtime silently overrides.
 */
export function findCodexGatewayConflicts(base: Record<string, unknown>): PolicyViolation[] {
  const plugins = objectAt(base.plugins);
  const found: PolicyViolation[] = [];
  const conflict = (path: string, message: string) => found.push({ path, code: 'INVALID_COMBINATION', message });
  if (plugins.enabled === false) conflict(pointer('plugins', 'enabled'), 'The Codex harness needs the plugin system enabled.');
  const listed = (list: unknown) => Array.isArray(list) && list.some((id) => typeof id === 'string' && id.trim().toLowerCase() === 'codex');
  if (listed(plugins.deny)) conflict(pointer('plugins', 'deny'), 'The configuration denies the codex plugin.');
  if (Array.isArray(plugins.allow) && plugins.allow.length > 0 && !listed(plugins.allow))
    conflict(pointer('plugins', 'allow'), 'The configuration’s plugin allowlist leaves out the codex plugin.');
  const codex = objectAt(objectAt(plugins.entries).codex);
  if (codex.enabled === false) conflict(pointer('plugins', 'entries', 'codex', 'enabled'), 'The configuration disables the codex plugin.');
  const config = objectAt(codex.config);
  if (config.codexPlugins !== undefined)
    conflict(pointer('plugins', 'entries', 'codex', 'config', 'codexPlugins'), 'The plugin bridge is the revision’s: the configuration cannot set its own.');
  const appServer = objectAt(config.appServer);
  for (const field of ['transport', 'url', 'authToken', 'headers', 'command', 'args', 'homeScope']) {
    if (appServer[field] !== undefined)
      conflict(pointer('plugins', 'entries', 'codex', 'config', 'appServer', field), 'The app-server connection is the runtime’s: the configuration cannot set it.');
  }
  return [...found, ...findModelConflicts(base)];
}

/** The model a Codex Agent's turns run on when the Configuration names none. */
const DEFAULT_CODEX_MODEL = 'openai/gpt-5.5';

/** The Configuration's primary model reference (`agents.defaults.model`, a string or `{primary}`), if any. */
function configuredModel(base: Record<string, unknown>): unknown {
  const model = objectAt(objectAt(base.agents).defaults).model;
  return isJsonObject(model) ? model.primary : model;
}

/** The model the Codex gateway pins its turns to: the Configuration's (checked by findModelConflicts) or the default. */
function codexModel(base: Record<string, unknown>): string {
  const model = configuredModel(base);
  return typeof model === 'string' ? model.trim() : DEFAULT_CODEX_MODEL;
}

/**
 * What would let OpenClaw answer a Codex Agent's turn itself instead of the harness: a primary
 * model Codex does not run (not `openai/…`), model fallbacks, a runtime of the Configuration's own
 * for that model, or settings of OpenClaw's own `openai` provider (a custom endpoint or request
 * override makes OpenClaw run the turn with its own client; docs/security.md).
 */
function findModelConflicts(base: Record<string, unknown>): PolicyViolation[] {
  const found: PolicyViolation[] = [];
  const conflict = (path: string, message: string) => found.push({ path, code: 'INVALID_COMBINATION', message });
  const defaults = objectAt(objectAt(base.agents).defaults);
  const model = configuredModel(base);
  const modelPath = isJsonObject(defaults.model) ? pointer('agents', 'defaults', 'model', 'primary') : pointer('agents', 'defaults', 'model');
  if (model !== undefined && (typeof model !== 'string' || !model.trim().startsWith('openai/')))
    conflict(modelPath, 'A Codex Agent’s turns run through the Codex harness on an OpenAI model (openai/…).');
  const fallbacks = objectAt(defaults.model).fallbacks;
  if (fallbacks !== undefined && !(Array.isArray(fallbacks) && fallbacks.length === 0))
    conflict(pointer('agents', 'defaults', 'model', 'fallbacks'), 'A Codex Agent never falls back to another model.');
  const runtime = objectAt(objectAt(defaults.models)[codexModel(base)]).agentRuntime;
  if (runtime !== undefined)
    conflict(
      pointer('agents', 'defaults', 'models', codexModel(base), 'agentRuntime'),
      'The runtime of a Codex Agent’s model is the Codex harness: the configuration cannot set it.',
    );
  if (objectAt(objectAt(base.models).providers).openai !== undefined)
    conflict(pointer('models', 'providers', 'openai'), 'Settings of OpenClaw’s own openai provider would let OpenClaw answer a Codex Agent’s turn itself.');
  return found;
}

/** The Agent's turns pinned to the Codex harness: the model's runtime is `codex` (which fails closed, never falls back) and there are no model fallbacks. */
function withCodexTurns(config: Record<string, unknown>, model: string): Record<string, unknown> {
  const agents = objectAt(config.agents);
  const defaults = objectAt(agents.defaults);
  const models = objectAt(defaults.models);
  return {
    ...config,
    agents: {
      ...agents,
      defaults: {
        ...defaults,
        model: { ...objectAt(defaults.model), primary: model, fallbacks: [] },
        models: { ...models, [model]: { ...objectAt(models[model]), agentRuntime: { id: 'codex' } } },
      },
    },
  };
}

/**
 * The revision's OpenClaw configuration for a Codex Agent: the operator's, with the codex plugin
 * (installed in the Agent's state: harness-plugin.ts) enabled, pointed at the dedicated app-server over the loopback WebSocket
 * (bearer from APP_SERVER_TOKEN_VARIABLE), and the bridge with one entry per selection ([X-1],
 * [G-1]), and its turns pinned to the harness (withCodexTurns). Operator settings of the plugin
 * (timeouts and the like) are kept.
 */
export function codexGatewayConfig(input: CodexGatewayInput): Record<string, unknown> {
  const config = withCodexTurns(clone(input.base), codexModel(input.base));
  const plugins = objectAt(config.plugins);
  const entries = objectAt(plugins.entries);
  const codex = objectAt(entries.codex);
  const codexConfig = objectAt(codex.config);
  const bridged = input.bridge.plugins.entries.codex;
  config.plugins = {
    ...plugins,
    entries: {
      ...entries,
      codex: {
        ...codex,
        enabled: bridged.enabled,
        config: {
          ...codexConfig,
          appServer: { ...objectAt(codexConfig.appServer), transport: 'websocket', url: input.appServerUrl, authToken: `\${${APP_SERVER_TOKEN_VARIABLE}}` },
          codexPlugins: clone(bridged.config.codexPlugins),
        },
      },
    },
  };
  return config;
}

/** What must be found in the effective configuration read back (verifyEffectiveConfig): the bridge, the transport and the turns pinned to the harness. */
export function codexGatewayOverlay(config: Record<string, unknown>): Record<string, unknown> {
  const codex = objectAt(objectAt(objectAt(config.plugins).entries).codex);
  const codexConfig = objectAt(codex.config);
  const defaults = objectAt(objectAt(config.agents).defaults);
  const model = objectAt(defaults.model).primary as string;
  return {
    plugins: {
      entries: {
        codex: { enabled: codex.enabled, config: { codexPlugins: codexConfig.codexPlugins, appServer: { transport: 'websocket', url: objectAt(codexConfig.appServer).url } } },
      },
    },
    agents: { defaults: { model: { primary: model, fallbacks: [] }, models: { [model]: { agentRuntime: { id: 'codex' } } } } },
  };
}
