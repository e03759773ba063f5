import { verifyEffectiveConfig, type OpenClawConfig } from '@occ/policy';
import { cliFailure } from './cli-failure.ts';
import { StartupFailure } from './failure.ts';
import { logEvent } from './log.ts';
import { parseJsonOutput } from './openclaw-cli.ts';
import type { OpenClawCommands } from './openclaw-commands.ts';

/**
 * Reads back, with the CLI, each top-level section the overlay constrains (`openclaw config get
 * <section> --json`: the redacted snapshot OpenClaw itself resolves, defaults included).
 */
async function readEffectiveSections(cli: OpenClawCommands, sections: readonly string[], options: { timeoutMs: number; signal: AbortSignal }): Promise<OpenClawConfig> {
  const read = async (section: string): Promise<[string, unknown]> => {
    const outcome = await cli.configGet(section, options);
    if (outcome.kind !== 'exited' || outcome.code !== 0) throw cliFailure('CONFIG_VERIFICATION_FAILED', `Reading back the configuration’s ${section}`, outcome);
    const parsed = parseJsonOutput(outcome.stdout);
    if (!parsed.ok) throw new StartupFailure('CONFIG_VERIFICATION_FAILED', `Reading back the configuration’s ${section} printed malformed output.`);
    return [section, parsed.value];
  };
  return Object.fromEntries(await Promise.all(sections.map(read)));
}

/** The effective configuration must contain the admitted policy (the translator's overlay). */
export async function verifyAdmittedPolicy(cli: OpenClawCommands, overlay: OpenClawConfig, options: { timeoutMs: number; signal: AbortSignal }): Promise<OpenClawConfig> {
  const effective = await readEffectiveSections(cli, Object.keys(overlay), options);
  const mismatches = verifyEffectiveConfig(effective, overlay);
  if (mismatches.length > 0) {
    logEvent('config.verify.failed', { mismatches });
    throw new StartupFailure('CONFIG_VERIFICATION_FAILED', 'The effective OpenClaw configuration does not contain the admitted plugin policy.');
  }
  logEvent('config.verify.done', { sections: Object.keys(overlay) });
  return effective;
}
