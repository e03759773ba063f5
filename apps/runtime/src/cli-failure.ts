import { StartupFailure, type StartupFailureCode } from './failure.ts';
import type { CliOutcome } from './openclaw-cli.ts';

/** Names how a CLI step ended abnormally, in a fixed sentence (the command's output stays in the log). */
export function cliFailure(code: StartupFailureCode, step: string, outcome: CliOutcome): StartupFailure {
  const how: Record<CliOutcome['kind'], string> = {
    exited: `exited with status ${outcome.kind === 'exited' ? outcome.code : ''}`,
    timeout: 'did not finish in time',
    signal: 'was stopped by a signal',
    'spawn-error': 'could not be started',
    'no-answer': 'got no answer (its OpenClaw process ended first)',
    'output-too-large': 'printed more output than allowed',
    aborted: 'was cancelled by the runtime’s shutdown',
    skipped: 'was not run (an earlier command of its process failed)',
  };
  return new StartupFailure(code, `${step} ${how[outcome.kind]}.`);
}
