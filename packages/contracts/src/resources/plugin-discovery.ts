import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema } from '../common.ts';
import { HarnessSchema } from './agent.ts';

/**
 * Request bodies of plugin discovery (docs/api.md, "Plugin discovery"). Discovery reads a catalog and
 * persists nothing; it is a POST only because its body can carry a credential.
 */

/** A transient PAT, used for this one request and never stored. */
export const DiscoveryAccessTokenSchema = Type.String({ minLength: 1, maxLength: 16384 });
/** A Secret of the same Namespace whose current value is the credential. */
export const DiscoverySecretRefSchema = Closed({ kind: Type.Literal('secret'), namespaceId: IdSchema('namespace'), id: IdSchema('secret') });
export type DiscoverySecretRef = Static<typeof DiscoverySecretRefSchema>;
const QSchema = Type.String({ maxLength: 1024 });
/** Opaque: from `nextCursor` of the previous page, with the same query and credential. */
const DiscoveryCursorSchema = Type.String({ minLength: 1, maxLength: 8192 });
/** The entry's `remoteId` (or `id` where the catalog has none). */
const DiscoveryPluginIdSchema = Type.String({ minLength: 1, maxLength: 256 });

/** Before the Agent exists the caller names its harness; at most one of accessToken / secretRef. */
const createTimeCredential = {
  harness: HarnessSchema,
  accessToken: Type.Optional(DiscoveryAccessTokenSchema),
  secretRef: Type.Optional(DiscoverySecretRefSchema),
};

export const DiscoverAgentPluginsBodySchema = Closed({ ...createTimeCredential, q: Type.Optional(QSchema), cursor: Type.Optional(DiscoveryCursorSchema) });
export type DiscoverAgentPluginsBody = Static<typeof DiscoverAgentPluginsBodySchema>;

export const DiscoverAgentPluginDetailsBodySchema = Closed({ ...createTimeCredential, pluginId: DiscoveryPluginIdSchema });
export type DiscoverAgentPluginDetailsBody = Static<typeof DiscoverAgentPluginDetailsBodySchema>;

/** An existing Agent's harness and credential (its bound Secret) are its own: the body has neither. */
export const DiscoverExistingAgentPluginsBodySchema = Closed({ q: Type.Optional(QSchema), cursor: Type.Optional(DiscoveryCursorSchema) });
export type DiscoverExistingAgentPluginsBody = Static<typeof DiscoverExistingAgentPluginsBodySchema>;

export const DiscoverExistingAgentPluginDetailsBodySchema = Closed({ pluginId: DiscoveryPluginIdSchema });
export type DiscoverExistingAgentPluginDetailsBody = Static<typeof DiscoverExistingAgentPluginDetailsBodySchema>;
