import { InvalidArgumentError, Option, type Command } from 'commander';
import { action, type CommandContext } from '../command-context.ts';
import { EXIT } from '../exit-codes.ts';
import { reportObjectError } from '../manifests/object-error.ts';
import { orderForApply, planContext } from '../manifests/order-manifests.ts';
import { applyPlan, type ApplyOutcome } from '../manifests/plan-outcome.ts';
import { serverDryRunClient } from '../manifests/server-dry-run-client.ts';
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

/** One result line: what apply did to which object. */
interface Applied {
  object: string;
  result: ApplyOutcome;
  id: string | null;
  file: string;
}

/**
 * What a result line adds in a dry run. A server dry run sends each create and update with
 * `?dryRun=true` (the server runs it whole and keeps nothing); an object that refers to one the
 * same apply creates cannot be checked by the server yet, and says so.
 */
function dryRunNote(mode: ApplyFlags['dryRun'], unresolved: ReadonlySet<string>): string {
  if (mode === undefined) return '';
  if (mode === 'client') return ' (dry run)';
  return unresolved.size === 0 ? ' (server dry run)' : ` (dry run; not checked by the server: it needs ${[...unresolved].join(', ')} first)`;
}

async function apply(context: CommandContext, flags: ApplyFlags): Promise<number> {
  const { options } = context;
  // Any --dry-run writes nothing: a client one only reads, a server one sends every write as a dry run.
  const dryRun = flags.dryRun !== undefined;
  const server = flags.dryRun === 'server';
  const documents = orderForApply(await readManifests(flags.file));
  const planning = planContext(context, documents, dryRun, server ? serverDryRunClient(context.connection.client) : context.connection.client);
  const applied: Applied[] = [];
  let exit: number = EXIT.OK;
  for (const entry of documents) {
    const { document, kind } = entry;
    try {
      planning.unresolved.clear();
      const plan = await kind.plan(planning, document);
      // A server dry run "writes" through the dry-run client, unless the object needs one not created yet.
      const done = await applyPlan(plan, dryRun && !(server && planning.unresolved.size === 0));
      const { outcome } = done;
      // The id a server dry run's create answers belongs to nothing that exists.
      const id = dryRun && outcome === 'created' ? null : done.id;
      applied.push({ object: plan.ref, result: outcome, id, file: document.source });
      if (isDataFormat(options.output)) continue;
      if (options.output === 'name') process.stdout.write(`${plan.ref}\n`);
      else if (options.quiet) process.stdout.write(id ? `${id}\n` : '');
      else process.stdout.write(`${plan.ref} ${outcome}${dryRunNote(flags.dryRun, planning.unresolved)}\n`);
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
    program
      .command('apply')
      .addOption(
        new Option(
          '-f, --file <path>',
          'a YAML or JSON file (several documents separated by ---), a directory of .yaml/.yml/.json files, or - for standard input',
        ).makeOptionMandatory(),
      )
      .addOption(
        new Option(
          '--dry-run [mode]',
          'write nothing: client (the default) says what apply would do from what the server has; server also sends every create and update as a server dry run, so the server checks them as it would a write',
        )
          .preset('client')
          .argParser(dryRunMode),
      )
      .description(
        'Create or update every object the files describe (kind: Namespace, Role, Secret, Configuration, Agent, AccessBinding, Restriction), in that order, and print kind/name created|configured|unchanged. An object equal to the file is not written, so applying twice changes nothing. Saving an Agent does not deploy it.',
      ),
    'occ apply -f team-a/',
    'occ apply -f support-bot.yaml --dry-run',
    'occ apply -f team-a/ --dry-run=server',
    'occ apply -f - -o name < support-bot.yaml',
  ).action(action<ApplyFlags>(async (context, _args, flags) => apply(context, flags)));
}
