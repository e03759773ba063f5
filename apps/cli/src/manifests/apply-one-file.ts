import { dirname } from 'node:path';
import type { CommandContext } from '../command-context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { readResourceFile } from '../input/read-input.ts';
import type { ManifestKind } from './object-plan.ts';
import { planContext } from './order-manifests.ts';
import { applyPlan, type ApplyOutcome } from './plan-outcome.ts';
import type { ManifestDocument } from './read-manifests.ts';
import { documentNamespace } from './references.ts';

/** What one file applied to: the outcome, the object's id and its Namespace's id. */
export interface AppliedFile {
  outcome: ApplyOutcome;
  name: string;
  id: string;
  namespaceId: string;
}

/** How the one-object commands say each outcome: `Agent bot unchanged: …`. */
export const APPLIED: Record<ApplyOutcome, string> = {
  created: 'created',
  configured: 'updated',
  unchanged: 'unchanged: it equals the file, nothing was written',
};

/**
 * `occ agents apply -f` and `occ configurations apply -f`: one document of one kind, planned and
 * applied exactly as `occ apply -f` does it (kinds/*.ts, plan-outcome.ts), so an object equal to
 * the file is `unchanged` and nothing is sent — no new version or generation, no audit event.
 * The document needs no `kind:` (this command says it). A problem of the file is named with it;
 * the API's errors (a 412 on a concurrent change) are reported as they come.
 */
export async function applyOneFile(context: CommandContext, path: string, kind: ManifestKind): Promise<AppliedFile> {
  const body = await readResourceFile(path);
  if (body.kind !== undefined && (typeof body.kind !== 'string' || body.kind.toLowerCase() !== kind.kind.toLowerCase())) {
    throw new CliError(`${path}: kind ${JSON.stringify(body.kind)} is not ${kind.kind}: occ apply -f takes every kind`, EXIT.USAGE);
  }
  if (typeof body.name !== 'string' || body.name === '') throw new CliError(`${path}: name is required`, EXIT.USAGE);
  const document: ManifestDocument = { source: path, directory: path === '-' ? process.cwd() : dirname(path), body: { ...body, kind: kind.kind } };
  const planning = planContext(context, [{ document, kind }], false);
  try {
    const plan = await kind.plan(planning, document);
    const { outcome, id } = await applyPlan(plan, false);
    return { outcome, name: body.name, id: id!, namespaceId: (await documentNamespace(planning, document))! };
  } catch (error) {
    if (error instanceof CliError) throw new CliError(`${path}: ${error.message}`, error.exitCode, error.code);
    throw error;
  }
}
