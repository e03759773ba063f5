import { isJsonObject, type PolicyViolation } from '@occ/contracts';
import { pointer } from '../json-pointer.ts';
import { dedupeViolations, violation } from '../shared-rules.ts';
import type { CodexRuntimeArtifact } from './artifact.ts';
import { readEffectiveApps, stringField } from './effective.ts';
import type { CodexConfig, CodexConfigRequirements } from './native-types.ts';

export interface CodexReviewerVerificationInput {
  /** The requested reviewers are the artifact's: each enabled app's `approvals_reviewer`, per selection. */
  artifact: CodexRuntimeArtifact;
  /** `config/read`'s `config` after the write (workspace layers included). */
  effective: CodexConfig;
  /** `configRequirements/read`'s `requirements`; `null` when none are configured. */
  requirements: CodexConfigRequirements | null;
  /** The model the Agent's threads use; `null` falls back to the effective `model`. */
  model: string | null;
}

/** Codex's reviewer when no layer names one. */
const NATIVE_REVIEWER = 'user';
/** Codex's approval policy when no layer sets one (`AskForApproval`'s default is `OnRequest`). */
const NATIVE_APPROVAL_POLICY = 'on-request';

/** `guardian_subagent` is the legacy name of `auto_review`: compared as one reviewer. */
function canonicalReviewer(reviewer: string): string {
  return reviewer === 'guardian_subagent' ? 'auto_review' : reviewer;
}

/**
 * Checks the reviewers the policy asked for against the effective configuration and the managed
 * requirements; `[]` when no selection asked for a reviewer. The requested reviewer is per
 * app (selections may differ), so it is read from the artifact rather than passed as one value.
 * Violations point into the effective configuration (`/apps/<id>/…`, `/approval_policy`, `/model`).
 * - a reviewer the requirements' `allowedApprovalsReviewers` does not list is forbidden;
 * - each app's reviewer resolves app → `_default` → top-level `approvals_reviewer` → `user`, and each
 *   of its account links' resolves link → app; both must equal the requested one;
 * - `auto_review` reviews only approval requests, so the effective `approval_policy` (unset: Codex's
 *   `on-request`) must be `on-request` or `{granular}`, and requirements that allow neither conflict;
 * - `human` conflicts with requirements that force automatic review on the model in use
 *   (`autoReview.requiredOnModels`); with such requirements and no known model it cannot be shown
 *   not to, and is refused.
 * Startup checks cannot see later workspace, session or model changes, nor strict review.
 */
export function verifyCodexReviewerConfiguration({ artifact, effective, requirements, model }: CodexReviewerVerificationInput): PolicyViolation[] {
  const requested = Object.entries(artifact.apps).flatMap(([id, entry]) =>
    entry.enabled && entry.approvals_reviewer !== undefined ? [[id, entry.approvals_reviewer] as const] : [],
  );
  if (requested.length === 0) return [];
  const read = readEffectiveApps(effective);
  if (!read.ok) return read.violations;
  const { defaultApp, apps } = read.effective;
  const found: PolicyViolation[] = [];
  const allowed = requirements?.allowedApprovalsReviewers;
  const requiredOn = requirements?.autoReview?.requiredOnModels ?? [];
  const modelInUse = model ?? stringField(effective, 'model');
  const globalReviewer = stringField(effective, 'approvals_reviewer') ?? NATIVE_REVIEWER;

  for (const [id, reviewer] of requested) {
    const at = pointer('apps', id, 'approvals_reviewer');
    if (allowed != null && !allowed.map(canonicalReviewer).includes(canonicalReviewer(reviewer))) {
      found.push(violation(at, 'UNSUPPORTED_VALUE', `The managed requirements do not allow the ${reviewer} reviewer.`));
    }
    const app = apps.get(id);
    const appReviewer = app?.approvals_reviewer ?? defaultApp.approvals_reviewer ?? globalReviewer;
    if (canonicalReviewer(appReviewer) !== canonicalReviewer(reviewer)) {
      found.push(violation(at, 'INVALID_VALUE', `The app's reviewer resolves to ${appReviewer}, not ${reviewer}.`));
    }
    for (const [linkId, link] of app?.links ?? []) {
      const linkReviewer = link.approvals_reviewer ?? appReviewer;
      if (canonicalReviewer(linkReviewer) !== canonicalReviewer(reviewer)) {
        const message = `The account link's reviewer resolves to ${linkReviewer}, not ${reviewer}.`;
        found.push(violation(pointer('apps', id, 'links', linkId, 'approvals_reviewer'), 'INVALID_VALUE', message));
      }
    }
    if (reviewer === 'user' && requiredOn.length > 0) {
      if (modelInUse === null) {
        const message = 'The requirements force automatic review on some models, and the model in use is unknown.';
        found.push(violation(pointer('model'), 'INVALID_COMBINATION', message));
      } else if (requiredOn.includes(modelInUse)) {
        const message = `The requirements force automatic review on ${modelInUse}, so a human reviewer cannot apply.`;
        found.push(violation(at, 'INVALID_COMBINATION', message));
      }
    }
  }
  if (requested.some(([, reviewer]) => canonicalReviewer(reviewer) === 'auto_review')) {
    found.push(...checkAutoReviewPolicy(effective, requirements));
  }
  // The `/model` finding repeats for every app asking for a human; report each finding once.
  return dedupeViolations(found, ({ path, message }) => `${path} ${message}`);
}

function reviewablePolicy(policy: unknown): boolean {
  return policy === 'on-request' || (isJsonObject(policy) && isJsonObject(policy.granular));
}

function checkAutoReviewPolicy(effective: CodexConfig, requirements: CodexConfigRequirements | null): PolicyViolation[] {
  const found: PolicyViolation[] = [];
  const at = pointer('approval_policy');
  const policy = effective.approval_policy ?? NATIVE_APPROVAL_POLICY;
  if (!reviewablePolicy(policy)) {
    const message = `Automatic review needs approval_policy on-request or granular, not ${JSON.stringify(policy)}.`;
    found.push(violation(at, 'INVALID_COMBINATION', message));
  }
  const allowedPolicies = requirements?.allowedApprovalPolicies;
  if (allowedPolicies != null && !allowedPolicies.some(reviewablePolicy)) {
    const message = 'The managed requirements allow no approval policy that automatic review works with.';
    found.push(violation(at, 'INVALID_COMBINATION', message));
  }
  return found;
}
