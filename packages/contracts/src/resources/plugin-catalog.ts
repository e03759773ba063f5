import { Type, type Static } from '@sinclair/typebox';
import { Closed } from '../common.ts';

/**
 * Safe catalog metadata returned by plugin discovery (docs/api.md, "Plugin discovery"). Only these
 * fields ever leave OCC: never artifacts, download URLs, upstream error text, account ids
 * or credentials. Links are HTTPS URLs without userinfo; anything else is dropped.
 */
const HttpsUrlSchema = Type.String({ maxLength: 8192, pattern: '^https://' });
const TextSchema = (maxLength: number) => Type.String({ maxLength });

export const PluginCatalogToolSchema = Closed({
  /** The tool's policy identity: the key a selection's `tools` map uses. */
  id: Type.String({ minLength: 1, maxLength: 1024 }),
  /** The native owner of the tool (an app id for Codex, the plugin id for OpenClaw). */
  ownerId: Type.String({ minLength: 1, maxLength: 1024 }),
  name: TextSchema(1024),
  description: Type.Optional(TextSchema(4096)),
  available: Type.Optional(Type.Boolean()),
  unavailableReason: Type.Optional(TextSchema(256)),
  /** Present only when the upstream classifies it; absent means unknown. */
  writes: Type.Optional(Type.Boolean()),
  destructive: Type.Optional(Type.Boolean()),
});
export type PluginCatalogTool = Static<typeof PluginCatalogToolSchema>;

export const PluginCatalogEntrySchema = Closed({
  /** The selection key an Agent's `plugins` map uses for this plugin. */
  id: Type.String({ minLength: 1, maxLength: 253 }),
  name: TextSchema(1024),
  /** Opaque upstream id; the `pluginId` a details request takes. */
  remoteId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  description: Type.Optional(TextSchema(4096)),
  /** npm-distributed entries (curated OpenClaw): the pinned package and its registry integrity. */
  package: Type.Optional(TextSchema(214)),
  version: Type.Optional(TextSchema(256)),
  integrity: Type.Optional(TextSchema(512)),
  /** True for plugins that ship inside the pinned runtime (nothing to install). */
  bundled: Type.Optional(Type.Boolean()),
  logoUrl: Type.Optional(HttpsUrlSchema),
  websiteUrl: Type.Optional(HttpsUrlSchema),
  privacyPolicyUrl: Type.Optional(HttpsUrlSchema),
  termsOfServiceUrl: Type.Optional(HttpsUrlSchema),
  available: Type.Boolean(),
  /** A fixed sentence chosen by OCC, never upstream text. */
  unavailableReason: Type.Optional(TextSchema(256)),
  selectableWithoutTools: Type.Optional(Type.Boolean()),
  /** null: the inventory is unknown (load details on demand); []: observed to be empty. */
  tools: Type.Union([Type.Array(PluginCatalogToolSchema, { maxItems: 10000 }), Type.Null()]),
});
export type PluginCatalogEntry = Static<typeof PluginCatalogEntrySchema>;

export const PluginCatalogSetupSchema = Closed({
  message: TextSchema(1024),
  links: Type.Array(Closed({ label: TextSchema(200), url: HttpsUrlSchema }), { maxItems: 8 }),
});

export const PluginCatalogPageSchema = Closed({
  plugins: Type.Array(PluginCatalogEntrySchema, { maxItems: 200 }),
  /** Opaque; pass it back unchanged with the same query and credential. null: last page. */
  nextCursor: Type.Union([Type.String({ minLength: 1, maxLength: 8192 }), Type.Null()]),
  /** Presentation-only guidance; never written into selections. */
  setup: Type.Optional(PluginCatalogSetupSchema),
});
export type PluginCatalogPage = Static<typeof PluginCatalogPageSchema>;
