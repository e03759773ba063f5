import ora from 'ora';
import { deploymentActivityAfter as activityAfter, type DeploymentEventData } from '@occ/contracts';
import { describeEvent, elapsed } from './describe-event.ts';

/** Where the events of `deploy --wait` show while it follows them (always stderr: stdout is the status). */
export interface ProgressDisplay {
  event(event: DeploymentEventData): void;
  /** Stops the spinner, if any, and leaves the terminal as it was; safe to call twice. */
  stop(): void;
}

/**
 * `spinner`: a terminal and no reason to keep it plain; `lines`: one plain line per event, no
 * escape codes (a pipe, a log file, CI, `--no-progress`); `silent`: `--quiet`, ids only.
 */
export type ProgressMode = 'spinner' | 'lines' | 'silent';

export function progressMode(options: {
  isTTY: boolean | undefined;
  columns: number | undefined;
  progress: boolean;
  quiet: boolean | undefined;
  term: string | undefined;
}): ProgressMode {
  if (options.quiet) return 'silent';
  if (!options.progress || !options.isTTY || options.term === 'dumb') return 'lines';
  // A pseudo-terminal nobody sized (0 columns, e.g. `script` in CI): a spinner cannot measure
  // its line there and redraws without end.
  if (!options.columns) return 'lines';
  return 'spinner';
}

interface DisplayOptions {
  stream?: NodeJS.WriteStream;
  now?: () => number;
}

function linesDisplay(stream: NodeJS.WritableStream, now: () => number, startedAt: number): ProgressDisplay {
  return {
    event: (event) => void stream.write(`${describeEvent(event, now() - startedAt)}\n`),
    stop: () => {},
  };
}

/**
 * An `ora` spinner with the current activity and the elapsed time; each finished step is
 * written above it as a line that stays (ora clears and redraws itself around writes).
 */
function spinnerDisplay(stream: NodeJS.WriteStream, now: () => number, startedAt: number): ProgressDisplay {
  let activity = 'following the deploy';
  // discardStdin off: ora would put the terminal in raw mode and listen for Ctrl-C on a stdin
  // it never sets flowing, so Ctrl-C would do nothing; cooked mode lets the terminal send SIGINT.
  const spinner = ora({ stream, isEnabled: true, discardStdin: false, text: activity }).start();
  const refresh = () => (spinner.text = `${activity} ${elapsed(now() - startedAt).trim()}`);
  const ticker = setInterval(refresh, 250);
  ticker.unref();
  let stopped = false;
  return {
    event(event) {
      if (stopped) return;
      // The new activity first: the write below redraws the spinner under the line with it.
      activity = activityAfter(event) ?? activity;
      refresh();
      stream.write(`${describeEvent(event, now() - startedAt)}\n`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(ticker);
      spinner.stop();
    },
  };
}

export function createProgressDisplay(mode: ProgressMode, options: DisplayOptions = {}): ProgressDisplay {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? Date.now;
  const startedAt = now();
  if (mode === 'silent') return { event: () => {}, stop: () => {} };
  if (mode === 'lines') return linesDisplay(stream, now, startedAt);
  return spinnerDisplay(stream, now, startedAt);
}
