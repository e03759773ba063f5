import { PERMANENT_STARTUP_FAILURE_CODES, STARTUP_FAILURE_CODES } from './startup-failure-codes.ts';

/**
 * What a reason code tells about the work item that carries it:
 * - `succeeded`: the work is done (`complete`).
 * - `cancelled`: the work no longer applies and was not done (`cancel`): a newer revision or a
 *   stop overtook it. Neither a success nor a failure.
 * - `failed`: permanent failure (`fail`).
 * - `retried`: a failed attempt, tried again with backoff; the item fails with it once its
 *   attempts are spent (`retry`).
 * - `deferred`: a convergence wait that spends no attempt (`defer`).
 * - `abandoned`: never stored; the worker lost its claim and the item belongs to another worker.
 */
export type WorkOutcomeKind = 'succeeded' | 'cancelled' | 'failed' | 'retried' | 'deferred' | 'abandoned';

/**
 * Codes a ComputeDriver may report for a runtime that did not start: the runtime's own codes,
 * a start the control plane denied (the controller's RUNTIME_START_DENIALS) or the driver refused
 * (the local driver's START_REFUSALS), and the drivers' own.
 */
export const RUNTIME_FAILURE_CODES = [
  ...STARTUP_FAILURE_CODES,
  'REVISION_UNAVAILABLE',
  'SECRET_ACCESS_REVOKED',
  'SECRET_RESERVED',
  'SECRET_UNAVAILABLE',
  'SECRET_VARIABLE_RESERVED',
  'RUNTIME_START_UNAVAILABLE',
  'RUNTIME_CONFINEMENT_UNAVAILABLE',
  'RUNTIME_EXITED',
  'RUNTIME_FAILED',
  'RUNTIME_IMAGE_UNAVAILABLE',
  'RUNTIME_MANIFEST_TOO_LARGE',
  'COMPUTE_REQUEST_REJECTED',
  // The ssh ComputeDriver's (docs/compute-ssh.md, "Failures").
  'SSH_HOST_UNCONFIGURED',
  'SSH_HOST_INVALID',
  'SSH_HOST_UNREACHABLE',
  'SSH_HOST_KEY_MISMATCH',
  'SSH_AUTH_REFUSED',
  'SSH_COMMAND_TIMEOUT',
  'SSH_HOST_DISK_FULL',
  'SSH_STAGING_FAILED',
  'RUNTIME_TOOLCHAIN_MISSING',
  'RUNTIME_START_FAILED',
] as const;
/** Codes a ComputeDriver may report while a revision converges. */
export const PENDING_REASON_CODES = [
  'REVISION_INCOMPLETE',
  'RUNTIME_STARTING',
  'RUNTIME_RESTARTING',
  'RUNTIME_STATUS_UNTRUSTED',
  'GATEWAY_STARTING',
  'REVISION_UNSCHEDULABLE',
] as const;

const each = <K extends string, V extends WorkOutcomeKind>(codes: readonly K[], kind: V) => Object.fromEntries(codes.map((c) => [c, kind])) as Record<K, V>;

/**
 * The one registry of work-item reason codes (the work queue's `reason_code`, served as a
 * deployment's `reasonCode`, `lastAttempt.code` and `error.code`), like the API's ERROR_STATUS.
 * docs/deployments.md explains every one; a drift test keeps the three in step.
 */
export const WORK_OUTCOMES = {
  REVISION_ACTIVATED: 'succeeded',
  REVISION_ALREADY_ACTIVE: 'succeeded',
  AGENT_STOPPED: 'succeeded',
  AGENT_GONE: 'succeeded',
  AGENT_REMOVED: 'succeeded',
  ACTIVE_REVISION_ENSURED: 'succeeded',
  ENSURE_NOT_NEEDED: 'succeeded',
  REVISION_SUPERSEDED: 'cancelled',
  REVISION_STOPPED: 'cancelled',
  STOP_SUPERSEDED: 'cancelled',
  INVALID_TARGET: 'failed',
  COMPUTE_DRIVER_MISMATCH: 'failed',
  INVALID_ADMITTED_REVISION: 'failed',
  ACTOR_REVOKED: 'failed',
  AUTHORIZATION_DENIED: 'failed',
  CONVERGENCE_DEADLINE_EXCEEDED: 'failed',
  ACTIVE_REVISION_CHANGED: 'retried',
  REVISION_FINALIZATION_INCOMPLETE: 'retried',
  WORKER_ERROR: 'retried',
  LEASE_EXPIRED: 'retried',
  ...each(RUNTIME_FAILURE_CODES, 'retried'),
  // A startup failure no retry can cure fails the deployment at once (startup-failure-codes.ts).
  ...each(PERMANENT_STARTUP_FAILURE_CODES, 'failed'),
  ...each(PENDING_REASON_CODES, 'deferred'),
  CLAIM_LOST: 'abandoned',
} as const satisfies Record<string, WorkOutcomeKind>;

export type WorkReasonCode = keyof typeof WORK_OUTCOMES;
/** What a work item may store: every code but the never-stored `abandoned` one. */
export const STORED_REASON_CODES = (Object.keys(WORK_OUTCOMES) as WorkReasonCode[]).filter((c) => WORK_OUTCOMES[c] !== 'abandoned') as StoredReasonCode[];
/** The codes of one kind: `complete` takes only `WorkOutcomeCode<'succeeded'>`, and so on. */
export type WorkOutcomeCode<K extends WorkOutcomeKind> = { [C in WorkReasonCode]: (typeof WORK_OUTCOMES)[C] extends K ? C : never }[WorkReasonCode];
export type StoredReasonCode = Exclude<WorkReasonCode, WorkOutcomeCode<'abandoned'>>;
export type RuntimeFailureCode = (typeof RUNTIME_FAILURE_CODES)[number];
export type PendingReasonCode = (typeof PENDING_REASON_CODES)[number];

export function isWorkReasonCode(code: unknown): code is WorkReasonCode {
  return typeof code === 'string' && Object.hasOwn(WORK_OUTCOMES, code);
}

/** Whether `code` is one of the registry's runtime failure codes (a failed start the driver stopped). */
export function isRuntimeFailureCode(code: string | null | undefined): code is RuntimeFailureCode {
  return (RUNTIME_FAILURE_CODES as readonly string[]).includes(code ?? '');
}

/** A compute-reported failure code as stored: one of the registry's, else `RUNTIME_FAILED`. */
export function runtimeFailureCode(code: string | undefined): RuntimeFailureCode {
  return isRuntimeFailureCode(code) ? code : 'RUNTIME_FAILED';
}

/** A compute-reported pending reason as stored: one of the registry's, else `REVISION_INCOMPLETE`. */
export function pendingReasonCode(code: string | undefined): PendingReasonCode {
  return (PENDING_REASON_CODES as readonly string[]).includes(code ?? '') ? (code as PendingReasonCode) : 'REVISION_INCOMPLETE';
}
