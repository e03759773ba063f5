import { CliError, EXIT } from '../../exit-codes.ts';
import type { ManifestKind } from '../object-plan.ts';
import type { ManifestDocument } from '../read-manifests.ts';
import { accessBindingKind } from './access-binding.ts';
import { agentKind } from './agent.ts';
import { configurationKind } from './configuration.ts';
import { namespaceKind } from './namespace.ts';
import { restrictionKind } from './restriction.ts';
import { roleKind } from './role.ts';
import { secretKind } from './secret.ts';

/**
 * Every kind `occ apply` knows, in the order it applies them: what others refer to comes first
 * (a Namespace before what lives in it, a Secret before the Configuration binding it, a
 * Configuration before its Agents, a role before its bindings). Principals and API keys are not
 * here: a principal's own `kind` field (human, service) would clash with the document's, and a
 * key is shown once, when it is created (occ principals create, occ keys create).
 */
export const MANIFEST_KINDS: readonly ManifestKind[] = [namespaceKind, roleKind, secretKind, configurationKind, agentKind, accessBindingKind, restrictionKind];

/** The kind a document names (`kind: Agent`, in any letter case). */
export function kindOf(document: ManifestDocument): ManifestKind {
  const named = document.body.kind;
  const found = typeof named === 'string' ? MANIFEST_KINDS.find((kind) => kind.kind.toLowerCase() === named.toLowerCase()) : undefined;
  if (found) return found;
  const known = MANIFEST_KINDS.map((kind) => kind.kind).join(', ');
  if (named === undefined) throw new CliError(`${document.source}: no kind: say what it is, e.g. kind: Configuration (one of ${known})`, EXIT.USAGE);
  throw new CliError(`${document.source}: unknown kind ${JSON.stringify(named)} (one of ${known})`, EXIT.USAGE);
}
