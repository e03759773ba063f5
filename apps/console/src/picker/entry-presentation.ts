import type { PluginCatalogEntry } from '@occ/contracts';

/**
 * How one catalog entry is shown, derived from catalog metadata only ([C-5], [C-6], [C-7]).
 * Kept apart from the state machine so the rules can be read and tested on their own.
 */

/** An image is only ever loaded from HTTPS, with no referrer, so a logo host learns nothing about the console. */
export type PluginLogo = { kind: 'image'; src: string; referrerPolicy: 'no-referrer' } | { kind: 'initials'; text: string };

/**
 * The server already drops non-HTTPS logos, but the console does not rely on that: a URL with
 * userinfo (`https://user:pass@host`) or any other scheme (http:, javascript:, data:) falls back
 * to initials.
 */
export function pluginLogo(name: string, logoUrl: string | undefined): PluginLogo {
  if (logoUrl !== undefined && isPlainHttpsUrl(logoUrl)) return { kind: 'image', src: logoUrl, referrerPolicy: 'no-referrer' };
  return { kind: 'initials', text: initials(name) };
}

/** HTTPS only, without userinfo: the rule for every catalog-supplied URL (logos, setup links). */
export function isPlainHttpsUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.username === '' && url.password === '';
}

/** Two letters: the first of the first two words, or the first two of a single word ("Linear" → "LI"). */
export function initials(name: string): string {
  const words = name.match(/[\p{L}\p{N}]+/gu) ?? [];
  const [first, second] = words;
  if (first === undefined) return '?';
  const letters = second === undefined ? [...first].slice(0, 2).join('') : `${[...first][0]}${[...second][0]}`;
  return letters.toLocaleUpperCase();
}

/**
 * Unsupported releases are never selectable, whatever their tools ([C-6]). Otherwise an entry
 * needs its tool inventory before it can be selected (the policy editor needs the tools), unless
 * the catalog says it is selectable without them ([C-5]).
 */
export function isSelectable(entry: Pick<PluginCatalogEntry, 'available' | 'selectableWithoutTools' | 'tools'>): boolean {
  if (entry.available !== true) return false;
  return entry.tools !== null || entry.selectableWithoutTools === true;
}

/**
 * Discovery reads a catalog; it never proves the Agent can reach the plugin's service, so the
 * picker has exactly one connection status to show ([C-7]).
 */
export const CONNECTION_STATUS = 'unverified' as const;
