import { randomBytes } from 'node:crypto';
import { CODEX_PAT_ENVIRONMENT } from '@occ/contracts';
import type { StartSecrets } from '../../../core/ports/runtime-start.ts';
import { codexRuntimeVariables, type CodexRuntimeSettings } from '../runtime-contract/codex-settings.ts';
import { isReservedVariable, StartRefused } from '../runtime-contract/start-refusal.ts';
import type { LiveObject } from './api.ts';

/** The runtime's per-revision credentials, kept in the revision's Secret (the only place OCC replicas share). */
export const TOKEN_VARIABLES = ['OCC_RUNTIME_STATUS_TOKEN', 'OCC_RUNTIME_GATEWAY_TOKEN', 'OCC_RUNTIME_TRANSPORT_SECRET'] as const;
export type RevisionTokens = Record<(typeof TOKEN_VARIABLES)[number], string>;

/** What every runtime gets from the Installation's settings (non-secret, but a proxy URL may carry credentials: Secret too). */
export interface RuntimeSettings {
  catalog?: string | undefined;
  npmRegistry?: string | undefined;
  unselectedPlugins?: string | undefined;
  codex?: CodexRuntimeSettings | undefined;
  network?: Readonly<Record<string, string>>;
}

/** The revision's tokens as its Secret holds them, or fresh random ones when it has none yet (first start). */
export function tokensOf(secret: LiveObject | null): RevisionTokens {
  const stored = secretValues(secret);
  const fresh = () => randomBytes(32).toString('base64url');
  const complete = TOKEN_VARIABLES.every((name) => (stored[name]?.length ?? 0) >= 32);
  return Object.fromEntries(TOKEN_VARIABLES.map((name) => [name, complete ? stored[name]! : fresh()])) as RevisionTokens;
}

/** A Secret's values, decoded from `data` (as the API server returns them). */
export function secretValues(secret: LiveObject | null): Record<string, string> {
  const data = (secret?.data ?? {}) as Record<string, string>;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

/**
 * Everything the revision's Secret holds (its stringData): the Installation's runtime settings,
 * the delivered Secret bindings, the runtime's tokens and the Agent's codex_pat under its
 * reserved name. A binding naming a reserved variable is refused (SECRET_VARIABLE_RESERVED), so
 * neither side can replace the other.
 */
export function revisionEnvironment(settings: RuntimeSettings, tokens: RevisionTokens, secrets: StartSecrets): Record<string, string> {
  const reserved = Object.keys(secrets.variables).find(isReservedVariable);
  if (reserved !== undefined) throw new StartRefused('SECRET_VARIABLE_RESERVED', reserved);
  return {
    ...(settings.network ?? {}),
    ...secrets.variables,
    ...tokens,
    ...(secrets.harnessAuth ? { [CODEX_PAT_ENVIRONMENT]: secrets.harnessAuth.value } : {}),
    ...(settings.catalog ? { OCC_RUNTIME_CATALOG: settings.catalog } : {}),
    ...(settings.npmRegistry ? { OCC_RUNTIME_NPM_REGISTRY: settings.npmRegistry } : {}),
    ...(settings.unselectedPlugins ? { OCC_RUNTIME_UNSELECTED_PLUGINS: settings.unselectedPlugins } : {}),
    ...codexRuntimeVariables(settings.codex),
  };
}

/** The Configuration's variables a Secret delivers (names only): every key that is not the runtime's own. */
export const deliveredNames = (values: Record<string, string>) =>
  Object.keys(values)
    .filter((name) => !isReservedVariable(name))
    .sort();

/** What a log reader must never see: the tokens, the delivered values and the codex_pat (too short ones are left to `lineRedactor`, redaction.ts). */
export function redactedValues(values: Record<string, string>): string[] {
  const secret = [...TOKEN_VARIABLES, CODEX_PAT_ENVIRONMENT, ...deliveredNames(values)];
  return secret.map((name) => values[name]).filter((value): value is string => value !== undefined);
}
