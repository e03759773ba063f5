import type { ApiClient } from '@occ/contracts/client';
import type { CommandContext } from '../command-context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { kindOf, MANIFEST_KINDS } from './kinds/index.ts';
import type { ManifestKind, PlanContext } from './object-plan.ts';
import type { ManifestDocument } from './read-manifests.ts';

export interface KindedDocument {
  document: ManifestDocument;
  kind: ManifestKind;
}

/**
 * The documents in the order apply goes in (by kind: MANIFEST_KINDS; within a kind, as read),
 * all checked before anything is written: every kind known, no object twice.
 */
export function orderForApply(documents: readonly ManifestDocument[]): KindedDocument[] {
  const kinded = documents.map((document) => ({ document, kind: kindOf(document) }));
  const seen = new Map<string, string>();
  for (const { document, kind } of kinded) {
    const ref = kind.refOf(document.body);
    const earlier = seen.get(ref);
    if (earlier) throw new CliError(`${ref} is in ${earlier} and in ${document.source}: give each object once`, EXIT.USAGE);
    seen.set(ref, document.source);
  }
  const rank = (kind: ManifestKind) => MANIFEST_KINDS.indexOf(kind);
  return kinded
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => rank(a.entry.kind) - rank(b.entry.kind) || a.index - b.index)
    .map(({ entry }) => entry);
}

/** What the kinds plan with: the connection, and each document's Namespace (its own, else -n or the context's). */
export function planContext(context: CommandContext, documents: readonly KindedDocument[], preview: boolean, client: ApiClient = context.connection.client): PlanContext {
  const { connection, options } = context;
  return {
    client,
    preview,
    pending: new Set(documents.map(({ document, kind }) => kind.refOf(document.body))),
    unresolved: new Set(),
    namespaceRef: (document) => {
      const own = document.body.namespace;
      if (own !== undefined && typeof own !== 'string') throw new CliError("namespace is a Namespace's name or id", EXIT.USAGE);
      return own ?? options.namespace ?? connection.defaultNamespace;
    },
  };
}
