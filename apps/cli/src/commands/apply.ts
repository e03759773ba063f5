import { InvalidArgumentError, Option, type Command } from 'commander';
import { action, type CommandContext } from '../command-context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { reportObjectError } from '../manifests/object-error.ts';
import { orderForApply, planContext } from '../manifests/order-manifests.ts';
import { applyPlan, type ApplyOutcome } from '../manifests/plan-outcome.ts';
import { readManifests } from '../manifests/read-manifests.ts';
import { isDataFormat } from '../output/output-format.ts';
import { printDocument } from '../output/render.ts';
import { example } from '../program.ts';

interface ApplyFlags {
  file: string;
  dryRun?: 'client' | 'server';
}

/** `--dry-run` alone is `client`, as kubectl's. */
function dryRunMode(value: string | undefined): 'client' | 'server' {
  if (value === undefined || value === 'client') return 'client';
  if (value === 'server') return 'server';
  throw new InvalidArgumentError('client (the default) or server');
}

/**
 * The API's save routes (create, PATCH) have no dry run of their own; only deploy has one
 * (`occ deploy AGENT --dry-run`). So a server dry run is refused rather than faked.
 */
const NO_SERVER_DRY_RUN = '--dry-run=server needs a dry run on the API\'s create and update routes, which it does not have (only deploy has one: occ deploy AGENT --dry-run). --dry-run (client) reads the server and says what apply would do, writing nothing.';

/** One result line: what apply did to which object. */
interface Applied {
  object: string;
  result: ApplyOutcome;
  id: string | null;
  file: string;
}

async function apply(context: CommandContext, flags: ApplyFlags): Promise<number> {
  const { options } = context;
  if (flags.dryRun === 'server') throw new CliError(NO_SERVER_DRY_RUN, EXIT.USAGE);
  // Any --dry-run that is not server is the client's: a bare flag must never write.
  const dryRun = flags.dryRun !== undefined;
  const documents = orderForApply(await readManifests(flags.file));
  const planning = planContext(context, documents, dryRun);
  const applied: Applied[] = [];
  let exit: number = EXIT.OK;
  for (const entry of documents) {
    const { document, kind } = entry;
    try {
      const plan = await kind.plan(planning, document);
      const { outcome, id } = await applyPlan(plan, dryRun);
      applied.push({ object: plan.ref, result: outcome, id, file: document.source });
      if (isDataFormat(options.output)) continue;
      if (options.output === 'name') process.stdout.write(`${plan.ref}\n`);
      else if (options.quiet) process.stdout.write(id ? `${id}\n` : '');
      else process.stdout.write(`${plan.ref} ${outcome}${dryRun ? ' (dry run)' : ''}\n`);
    } catch (error) {
      const code = reportObjectError(entry, error);
      if (exit === EXIT.OK) exit = code;
    }
  }
  if (isDataFormat(options.output)) printDocument({ dryRun, items: applied }, options);
  return exit;
}

export function registerApplyCommand(program: Command): void {
  example(
    program.command('apply')
      .addOption(new Option('-f, --file <path>', 'a YAML or JSON file (several documents separated by ---), a directory of .yaml/.yml/.json files, or - for standard input').makeOptionMandatory())
      .addOption(new Option('--dry-run [mode]', 'client: say what apply would do, writing nothing (server: refused, the API has no dry run for saving)').preset('client').argParser(dryRunMode))
      .description('Create or update every object the files describe (kind: Namespace, Role, Secret, Configuration, Agent, AccessBinding, Restriction), in that order, and print kind/name created|configured|unchanged. An object equal to the file is not written, so applying twice changes nothing. Saving an Agent does not deploy it.'),
    'occ apply -f team-a/',
    'occ apply -f support-bot.yaml --dry-run',
    'occ apply -f - -o name < support-bot.yaml',
  ).action(action<ApplyFlags>(async (context, _args, flags) => apply(context, flags)));
}
