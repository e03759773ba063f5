import { chmodSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFileAtomic } from '@occ/host-io/private-files';

/**
 * The revision's private CODEX_HOME ([X-1]): its own `config.toml` (0600) and nothing inherited
 * from the user's. The baseline turns the app, plugin and remote-plugin features on only when a
 * selection is enabled, keeps `apps._default` off in every case ([X-2]) and keeps the login in
 * memory (`ephemeral`), so no credential is ever written under the home. Everything else the
 * runtime writes later through `config/batchWrite`. `openai_base_url` is where Codex sends its
 * model requests when the Installation names an endpoint (OCC_CODEX_MODEL_URL); the built-in
 * `openai` provider is the only one OpenClaw's harness uses, so this is its one setting.
 * `chatgpt_base_url` is the Installation's hosted service (OCC_CODEX_CATALOG_URL) for the calls
 * the app-server makes from its config rather than from CODEX_APP_SERVER_CHATGPT_BASE_URL: an
 * Enterprise workspace's managed policies (`wham/config/bundle`), which Codex must load before it
 * reads any configuration. Product analytics are off: an Agent's Codex reports nothing about its
 * turns to the vendor (docs/security.md). The Agent's workspace is written untrusted: Codex would
 * otherwise mark it trusted by itself at the first thread that may write there, and from then on load
 * a `.codex/config.toml` the Agent's tools can write in it (docs/specification-differences.md, X-20).
 */
export function prepareCodexHome(
  dir: string,
  options: { pluginsEnabled: boolean; modelBaseUrl?: string | null; chatgptBaseUrl?: string | null; workspace?: string },
): { home: string; configPath: string } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const on = options.pluginsEnabled ? 'true' : 'false';
  const configPath = join(dir, 'config.toml');
  writePrivateFileAtomic(
    configPath,
    [
      '# Written by the OCC runtime for one Agent revision; replaced at every start.',
      'cli_auth_credentials_store = "ephemeral"',
      'check_for_update_on_startup = false',
      // The Installation's endpoints (URLs the runtime environment validated; a JSON string is a TOML basic string).
      ...(options.modelBaseUrl ? [`openai_base_url = ${JSON.stringify(options.modelBaseUrl)}`] : []),
      ...(options.chatgptBaseUrl ? [`chatgpt_base_url = ${JSON.stringify(options.chatgptBaseUrl)}`] : []),
      '',
      '[features]',
      `apps = ${on}`,
      `plugins = ${on}`,
      `remote_plugin = ${on}`,
      '',
      '[apps._default]',
      'enabled = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      // Codex keys a project by its resolved path.
      ...(options.workspace ? [`[projects.${JSON.stringify(realpathSync(options.workspace))}]`, 'trust_level = "untrusted"', ''] : []),
    ].join('\n'),
  );
  return { home: dir, configPath };
}
