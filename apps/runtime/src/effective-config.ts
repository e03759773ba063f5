import { verifyEffectiveConfig, type OpenClawConfig } from '@occ/policy';
import { cliFailure } from './cli-failure.ts';
import { StartupFailure } from './failure.ts';
import { logEvent } from './log.ts';
import type { ReadCommand } from './openclaw-batch.ts';
import { parseJsonOutput, type CliOutcome } from './openclaw-cli.ts';
import type { OpenClawCommands } from './openclaw-commands.ts';

/**
 * The read-back of each top-level section the overlay constrains (`openclaw config get <section>
 * --json`: the redacted snapshot OpenClaw itself resolves, defaults included).
 */
export function configReads(overlay: OpenClawConfig): ReadCommand[] {
  return Object.keys(overlay).map((section) => ({ command: 'configGet', section }));
}

/** The effective configuration must contain the admitted policy (the translator's overlay); `reads` are configReads(overlay)'s outcomes. */
export function checkAdmittedPolicy(overlay: OpenClawConfig, reads: readonly CliOutcome[]): OpenClawConfig {
  const sections = Object.keys(overlay);
  const effective = Object.fromEntries(
    sections.map((section, index) => {
      const outcome = reads[index] ?? { kind: 'skipped' };
      if (outcome.kind !== 'exited' || outcome.code !== 0) throw cliFailure('CONFIG_VERIFICATION_FAILED', `Reading back the configuration’s ${section}`, outcome);
      const parsed = parseJsonOutput(outcome.stdout);
      if (!parsed.ok) throw new StartupFailure('CONFIG_VERIFICATION_FAILED', `Reading back the configuration’s ${section} printed malformed output.`);
      return [section, parsed.value];
    }),
  );
  const mismatches = verifyEffectiveConfig(effective, overlay);
  if (mismatches.length > 0) {
    logEvent('config.verify.failed', { mismatches });
    throw new StartupFailure('CONFIG_VERIFICATION_FAILED', 'The effective OpenClaw configuration does not contain the admitted plugin policy.');
  }
  logEvent('config.verify.done', { sections });
  return effective;
}

/** Reads the overlay's sections back in one OpenClaw process and checks them (checkAdmittedPolicy). */
export async function verifyAdmittedPolicy(cli: OpenClawCommands, overlay: OpenClawConfig, options: { timeoutMs: number; signal: AbortSignal }): Promise<OpenClawConfig> {
  const reads = await cli.readInOneProcess(configReads(overlay), options);
  return checkAdmittedPolicy(
    overlay,
    reads.map((read) => read.outcome),
  );
}
