import type { StoredReasonCode } from '@occ/contracts';
import { ClaimLostError, type Claim, type WorkItem, type WorkKind, type WorkState } from '../../core/ports/work-queue.ts';
import { iso, isoOrNull } from '../repositories/rows.ts';

/** A work_items row as the drivers return it. */
export interface WorkRow {
  idempotency_key: string;
  id: string;
  kind: WorkKind;
  lane: string;
  namespace_id: string;
  agent_id: string;
  revision_id: string | null;
  actor_id: string;
  state: WorkState;
  available_at: Date;
  attempts: number;
  max_attempts: number;
  deadline_at: Date;
  claim_token: string | null;
  lease_expires_at: Date | null;
  last_attempt_at: Date | null;
  /** Element n − 1: when attempt n was first claimed (null for attempts before this column existed). */
  attempt_claimed_at: Array<Date | null>;
  /** Written only through the queue, whose methods take registry codes. */
  reason_code: StoredReasonCode | null;
  error_message: string | null;
  result: unknown;
  created_at: Date;
  updated_at: Date;
}

export const WORK_COLUMNS = `idempotency_key, id, kind, lane, namespace_id, agent_id, revision_id, actor_id, state,
  available_at, attempts, max_attempts, deadline_at, claim_token, lease_expires_at, last_attempt_at, attempt_claimed_at,
  reason_code, error_message, result, created_at, updated_at`;

/**
 * The live-claim predicate every transition matches, with the key as $1 and the token as $2.
 * clock_timestamp(), not now(): the lease is judged when the row is reached, after any lock wait.
 */
export const LIVE_CLAIM = `idempotency_key = $1 AND claim_token = $2::uuid AND state = 'claimed' AND lease_expires_at > clock_timestamp()`;

/** Clears the claim columns when an item leaves `claimed` (the row's CHECK requires it), stamped `at`. */
export const releasedAt = (at: string) => `claim_token = NULL, lease_expires_at = NULL, updated_at = ${at}`;
export const RELEASE = releasedAt('clock_timestamp()');

/** A duration in milliseconds bound as parameter `$n`. */
export const millis = (n: number) => `($${n}::float8 * interval '1 millisecond')`;

export const toWorkItem = (r: WorkRow): WorkItem => ({
  key: r.idempotency_key,
  id: r.id,
  kind: r.kind,
  lane: r.lane,
  namespaceId: r.namespace_id,
  agentId: r.agent_id,
  revisionId: r.revision_id,
  actorId: r.actor_id,
  state: r.state,
  availableAt: iso(r.available_at),
  attempts: r.attempts,
  maxAttempts: r.max_attempts,
  deadlineAt: iso(r.deadline_at),
  lastAttemptAt: isoOrNull(r.last_attempt_at),
  attemptClaimedAt: r.attempt_claimed_at.map(isoOrNull),
  leaseExpiresAt: isoOrNull(r.lease_expires_at),
  reasonCode: r.reason_code,
  errorMessage: r.error_message,
  result: r.result ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The bound parameters of the live-claim predicate. */
export const fence = (claim: Claim): [string, string] => [claim.item.key, claim.token];

/** A transition that matched no row lost its claim. */
export function matched<R>(rows: R[], claim: Claim): R {
  if (!rows[0]) throw new ClaimLostError(claim.item.key);
  return rows[0];
}
