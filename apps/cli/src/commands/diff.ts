import { Option, type Command } from 'commander';
import { stringify } from 'yaml';
import { action, type CommandContext } from '../command-context.ts';
import { EXIT } from '../exit-codes.ts';
import { reportObjectError } from '../manifests/object-error.ts';
import { orderForApply, planContext } from '../manifests/order-manifests.ts';
import { readManifests } from '../manifests/read-manifests.ts';
import { orderLike, sameJson } from '../manifests/same-json.ts';
import { note } from '../output/render.ts';
import { unifiedDiff } from '../output/unified-diff.ts';
import { example } from '../program.ts';

/** `occ diff` exits 1 when an object differs from its file (kubectl's convention); errors exit with their own code (2–7). */
const DIFFERENCES = 1;

async function diff(context: CommandContext, file: string): Promise<number> {
  const { options } = context;
  const documents = orderForApply(await readManifests(file));
  const planning = planContext(context, documents, true);
  let differs = false;
  let failed: number = EXIT.OK;
  for (const entry of documents) {
    const { document, kind } = entry;
    try {
      const plan = await kind.plan(planning, document);
      if (plan.live !== null && sameJson(plan.live, plan.desired)) continue;
      differs = true;
      if (options.quiet) continue;
      // The server's side in the file's key order, so the diff shows changes, not jsonb's reordering.
      const before = plan.live === null ? '' : stringify(orderLike(plan.live, plan.desired));
      process.stdout.write(
        unifiedDiff(before, stringify(plan.desired), { from: plan.live === null ? '/dev/null' : `${plan.ref} (server)`, to: `${plan.ref} (${document.source})` }),
      );
      if (plan.live !== null && !plan.update) note(`${plan.ref}: apply would refuse this change: ${plan.refusal ?? 'the API cannot change it in place'}`, options);
    } catch (error) {
      const code = reportObjectError(entry, error);
      if (failed === EXIT.OK) failed = code;
    }
  }
  if (failed !== EXIT.OK) return failed;
  return differs ? DIFFERENCES : EXIT.OK;
}

export function registerDiffCommand(program: Command): void {
  example(
    program
      .command('diff')
      .addOption(new Option('-f, --file <path>', 'a YAML or JSON file, a directory of them, or - for standard input (as occ apply takes them)').makeOptionMandatory())
      .description(
        "Show, as a unified diff per object, what occ apply -f would change: the server's object (names as ids) against the file. Writes nothing. Exit 0: no differences; 1: differences; 2–7: an error.",
      ),
    'occ diff -f team-a/',
    'occ diff -f base.yaml -q || occ apply -f base.yaml',
  ).action(action<{ file: string }>(async (context, _args, flags) => diff(context, flags.file)));
}
