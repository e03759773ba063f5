import type { ApiClient } from '@occ/contracts/client';
import type { ManifestDocument } from './read-manifests.ts';

/**
 * What `occ apply` and `occ diff` know about one document: the server's object as the document's
 * fields describe it (names resolved to ids), and what the document wants those fields to be.
 * Equal: unchanged; no live object: created; else configured (or refused, for a kind the API
 * cannot change in place).
 */
export interface ObjectPlan {
  /** `configuration/base`: what apply prints before created|configured|unchanged. */
  ref: string;
  /** The server's object, projected onto the fields the kind manages; null when it does not exist. */
  live: Record<string, unknown> | null;
  /** The same fields as the document wants them (fields it leaves out keep the live value). */
  desired: Record<string, unknown>;
  /** Creates the object; answers its id. */
  create(): Promise<string>;
  /** Changes the live object to the desired one; absent where the API has no update for the kind. */
  update?: () => Promise<void>;
  /** Why a differing object cannot be changed (no update route, or a field that never changes). */
  refusal?: string;
  /** The id of the live object (for `-q` and `-o json`). */
  id: string | null;
}

/** What a kind needs to plan one document. */
export interface PlanContext {
  client: ApiClient;
  /**
   * A dry run or a diff: a reference to an object that does not exist yet, but that one of the
   * documents being applied creates, resolves to a placeholder instead of failing.
   */
  preview: boolean;
  /** `kind/name` of every document being applied (what a preview may find missing). */
  pending: ReadonlySet<string>;
  /** `kind/name` of the objects the plan being made referred to that do not exist yet (placeholders); apply clears it per document. */
  unresolved: Set<string>;
  /** The Namespace of a document: its own `namespace:`, else `-n`, the environment or the context's. */
  namespaceRef(document: ManifestDocument): string | undefined;
}

/** One kind of document `occ apply` knows (`kind: Agent`). */
export interface ManifestKind {
  /** As a document names it: `Agent`. */
  kind: string;
  /** As apply prints it, lower case: `agent`. */
  noun: string;
  /** The name apply prints, from the document as written (its `name`, or a summary of what identifies it). */
  refOf(body: Record<string, unknown>): string;
  plan(context: PlanContext, document: ManifestDocument): Promise<ObjectPlan>;
}
