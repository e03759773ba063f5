/**
 * The curated OpenClaw catalog: what the pinned runtime can run. Generated from the real
 * `openclaw` CLI (bundled plugins) and the npm registry (npm-distributed plugins) by
 * `scripts/generate-openclaw-catalog.ts`, committed as `openclaw-catalog.json`. The controller
 * discovers from it; the runtime validates selections and installs from it.
 */
export interface OpenClawCatalog {
  /** The pinned runtime the catalog was read from. */
  runtime: { package: 'openclaw'; version: string; integrity: string };
  /** Sorted by id; ids are unique. */
  plugins: OpenClawCatalogPlugin[];
}

export interface OpenClawCatalogPlugin {
  /**
   * The selection key without the optional `openclaw:` prefix: the npm package name for
   * npm-distributed plugins (e.g. `@openclaw/nostr`), the plugin id for bundled ones (e.g. `browser`).
   */
  id: string;
  /** OpenClaw's own plugin id (`plugins.entries.<pluginId>`, `openclaw plugins inspect <pluginId>`). */
  pluginId: string;
  name: string;
  description: string;
  /** `bundled`: ships inside the runtime, nothing to install; `npm`: installed with `openclaw plugins install`. */
  source: 'bundled' | 'npm';
  /** npm package name (`openclaw` for bundled plugins). */
  package: string;
  /** Exact version (for bundled plugins: the runtime's version). */
  version: string;
  /** Registry integrity (sha512) of that exact package version. */
  integrity: string;
  /** Native tool names the plugin registers; null when not known. */
  tools: string[] | null;
}
