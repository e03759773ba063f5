import { CliError, EXIT } from '../exit-codes.ts';
import type { ObjectPlan } from './object-plan.ts';
import { sameJson } from './same-json.ts';

export type ApplyOutcome = 'created' | 'configured' | 'unchanged';

/**
 * Applies one plan (or, in a dry run, only says what it would do): missing → created, equal →
 * unchanged (nothing is sent, so a second apply writes nothing), different → configured, or
 * refused where the API cannot change the object in place (exit 5).
 */
export async function applyPlan(plan: ObjectPlan, dryRun: boolean): Promise<{ outcome: ApplyOutcome; id: string | null }> {
  if (plan.live === null) return { outcome: 'created', id: dryRun ? null : await plan.create() };
  if (sameJson(plan.live, plan.desired)) return { outcome: 'unchanged', id: plan.id };
  if (!plan.update) throw new CliError(`it differs from the file, and ${plan.refusal ?? 'the API cannot change it in place'}`, EXIT.CONFLICT);
  if (!dryRun) await plan.update();
  return { outcome: 'configured', id: plan.id };
}
