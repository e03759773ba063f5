import type { PinnedToolchain } from '../toolchain.ts';

export interface CodexProcessEnvironmentInput {
  toolchain: PinnedToolchain;
  path: string;
  home: string;
  lang: string;
  /** The runtime's TMPDIR (the Agent's own temp directory); null: the system's. */
  tmpDir?: string | null;
  codexHome: string;
  /** The runtime's allowlisted network variables (RuntimeEnvironment.network). */
  network: Readonly<Record<string, string>>;
  /** The Agent's codex_pat, when it has one: Codex's personal-access-token login reads it from CODEX_ACCESS_TOKEN. */
  accessToken: string | null;
  /** Hosted-service base URLs (an Installation's own endpoints, or a test's fakes); null keeps Codex's defaults. */
  chatgptBaseUrl: string | null;
  authBaseUrl: string | null;
}

/**
 * The dedicated app-server's whole environment, built from nothing: the pinned Node first on
 * PATH, its private CODEX_HOME, the network variables, and the Agent's codex_pat as the
 * environment variable Codex reads it from (never argv, never a file: the home's credential store
 * is `ephemeral`). Codex is not Node: it does not read NODE_EXTRA_CA_CERTS, so the same CA file
 * is handed over as CODEX_CA_CERTIFICATE (unless the operator set that one) — without it, a host
 * whose HTTPS goes through its own CA would fail every hosted call.
 */
export function codexProcessEnvironment(input: CodexProcessEnvironmentInput): Record<string, string> {
  const env: Record<string, string> = {
    ...input.network,
    PATH: `${input.toolchain.nodeBinDir}:${input.path}`,
    HOME: input.home,
    LANG: input.lang,
    ...(input.tmpDir ? { TMPDIR: input.tmpDir } : {}),
    CODEX_HOME: input.codexHome,
  };
  const extraCa = input.network.NODE_EXTRA_CA_CERTS;
  if (extraCa && !env.CODEX_CA_CERTIFICATE) env.CODEX_CA_CERTIFICATE = extraCa;
  if (input.accessToken !== null) env.CODEX_ACCESS_TOKEN = input.accessToken;
  if (input.chatgptBaseUrl !== null) env.CODEX_APP_SERVER_CHATGPT_BASE_URL = input.chatgptBaseUrl;
  if (input.authBaseUrl !== null) env.CODEX_AUTHAPI_BASE_URL = input.authBaseUrl;
  return env;
}
