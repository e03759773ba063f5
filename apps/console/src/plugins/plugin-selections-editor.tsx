import type { Harness, PluginMap } from '@occ/contracts';
import type { DiscoveryCredential } from '../picker/discovery-api.ts';

/**
 * The Agent's plugin selections and tool policies, edited with real controls, with the picker
 * dialog to add plugins. Used by the create-Agent page and the Plugins tab.
 */
export interface PluginSelectionsEditorProps {
  /** Whose catalog the picker browses (null: curated catalogs that need no credential). */
  credential: DiscoveryCredential | null;
  harness: Harness;
  selections: PluginMap;
  onChange: (next: PluginMap) => void;
  /**
   * The last save's error: its JSON pointers under `/plugins/…` (and `/pluginApprovers`) are
   * shown at the control they name.
   */
  saveError: unknown;
  /** An existing Agent (capabilities from `getAgentPluginCapabilities`); null while creating. */
  agent: { ns: string; agentId: string } | null;
}

// PLACEHOLDER — being built (issue 13).
export function PluginSelectionsEditor(_props: PluginSelectionsEditorProps) {
  return <p>Not built yet.</p>;
}
