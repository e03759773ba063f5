import type { PluginCatalogEntry } from '@occ/contracts';
import { CODEX_NATIVE_ID_PATTERN, CODEX_SELECTION_PREFIX } from '@occ/policy';
import { publicHttpsUrl } from './safe-links.ts';
import { isJsonObject } from '@occ/contracts';
import { displayText, identifier, optionalArray, optionalBoolean, optionalString, record, string, type WireRecord } from './wire.ts';

/** The marketplace suffix of every hosted selection key: `codex:<slug>@openai-curated-remote`. */
const HOSTED_MARKETPLACE = 'openai-curated-remote';
/** Upstream plugin ids travel in a URL path: a conservative alphabet only. */
export const REMOTE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,255}$/u;
const MAX_APPS = 100;
const MAX_SKILLS_OR_SERVERS = 1000;

const INSTALLATION_POLICIES = new Set(['AVAILABLE', 'INSTALLED_BY_DEFAULT', 'NOT_AVAILABLE']);

/** Fixed sentences: upstream reason text is never echoed. */
export const UNAVAILABLE = {
  disabled_by_admin: 'A workspace admin has disabled this plugin.',
  plan_not_eligible: "This plugin is not included in the account's ChatGPT plan.",
  required_app_unavailable: 'An app this plugin requires is not available to the account.',
  disabled: 'This plugin is not available to the account.',
  localExecutor: 'This plugin needs a local Codex executor, which OCC does not run.',
  noApps: 'This plugin provides no apps OCC can connect.',
  unsupportedRelease: "This plugin's release uses features OCC does not support.",
} as const;

/** A hosted catalog item that passed the entry checks. */
export interface HostedPlugin {
  remoteId: string;
  /** Declared app ids, first declaration kept, at most MAX_APPS. */
  apps: string[];
  /** The safe entry, `tools: null` (the inventory comes from details). */
  entry: PluginCatalogEntry;
}

/**
 * Reads one `plugins/list`, `plugins/search` or `plugins/{id}` item. A wrong shape is
 * `invalid_response`; an item OCC does not offer (not GLOBAL, a slug that is no selection key,
 * an unknown installation policy) is `undefined`.
 */
export function readHostedPlugin(raw: unknown): HostedPlugin | undefined {
  const item = record(raw);
  const remoteId = string(item.id);
  const slug = string(item.name);
  const scope = string(item.scope);
  const installationPolicy = string(item.installation_policy);
  const status = optionalString(item.status);
  const disabledReason = optionalString(item.disabled_reason);
  const requiresLocalExecutor = optionalBoolean(item.requires_local_executor);
  const release = item.release === undefined || item.release === null ? {} : record(item.release);
  const iface = release.interface === undefined || release.interface === null ? {} : record(release.interface);

  if (scope !== 'GLOBAL' || !INSTALLATION_POLICIES.has(installationPolicy) || !REMOTE_ID_PATTERN.test(remoteId)) return undefined;
  const nativeId = `${slug}@${HOSTED_MARKETPLACE}`;
  if (!CODEX_NATIVE_ID_PATTERN.test(nativeId)) return undefined;

  const apps = declaredApps(release);
  const unavailableReason = (() => {
    if ((status !== undefined && status !== 'ENABLED') || installationPolicy === 'NOT_AVAILABLE') return disabledSentence(disabledReason);
    if (requiresLocalExecutor !== false) return UNAVAILABLE.localExecutor;
    if (apps.length === 0) return UNAVAILABLE.noApps;
    if (!supportedRelease(release, apps)) return UNAVAILABLE.unsupportedRelease;
    return undefined;
  })();

  const entry: PluginCatalogEntry = {
    id: `${CODEX_SELECTION_PREFIX}${nativeId}`,
    name: displayText(release.display_name, 1024) ?? slug,
    remoteId,
    available: unavailableReason === undefined,
    tools: null,
  };
  assign(entry, 'description', displayText(iface.short_description ?? release.description, 4096));
  assign(entry, 'logoUrl', publicHttpsUrl(iface.logo_url) ?? publicHttpsUrl(iface.composer_icon_url));
  assign(entry, 'websiteUrl', publicHttpsUrl(iface.website_url));
  assign(entry, 'privacyPolicyUrl', publicHttpsUrl(iface.privacy_policy_url));
  assign(entry, 'termsOfServiceUrl', publicHttpsUrl(iface.terms_of_service_url));
  if (unavailableReason === undefined) entry.selectableWithoutTools = true;
  else entry.unavailableReason = unavailableReason;
  return { remoteId, apps, entry };
}

function assign<K extends keyof PluginCatalogEntry>(entry: PluginCatalogEntry, key: K, value: PluginCatalogEntry[K] | undefined): void {
  if (value !== undefined) entry[key] = value;
}

function disabledSentence(reason: string | undefined): string {
  switch (reason) {
    case 'disabled_by_admin':
    case 'plan_not_eligible':
    case 'required_app_unavailable':
      return UNAVAILABLE[reason];
    default:
      return UNAVAILABLE.disabled;
  }
}

/** `release.app_manifest.apps[].id`, else `release.app_ids`; the first declaration of each app wins. */
function declaredApps(release: WireRecord): string[] {
  const manifest = release.app_manifest === undefined || release.app_manifest === null ? undefined : record(release.app_manifest);
  const declared = optionalArray(manifest?.apps, MAX_APPS);
  const ids = declared ? declared.map((app) => record(app).id) : (optionalArray(release.app_ids, MAX_APPS) ?? []);
  return [...new Set(ids.map((id) => identifier(id, 256)))];
}

/** Scheduled tasks, or an MCP server no app declares, are beyond what OCC runs. */
function supportedRelease(release: WireRecord, apps: readonly string[]): boolean {
  if ((optionalArray(release.scheduled_tasks, MAX_SKILLS_OR_SERVERS)?.length ?? 0) > 0) return false;
  optionalArray(release.skills, MAX_SKILLS_OR_SERVERS); // bounded, though skills need nothing from OCC
  const servers = optionalArray(release.mcp_servers, MAX_SKILLS_OR_SERVERS) ?? [];
  return servers.every((server) => isJsonObject(server) && typeof server.app_id === 'string' && apps.includes(server.app_id));
}

/** `pagination.next_page_token`: a non-empty token, or null on the last page. */
export function readNextPageToken(body: WireRecord): string | null {
  const pagination = body.pagination === undefined || body.pagination === null ? {} : record(body.pagination);
  const token = optionalString(pagination.next_page_token);
  if (token === undefined || token === '') return null;
  return identifier(token, 4096);
}
