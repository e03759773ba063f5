/**
 * Runs `body` with a signal that Ctrl-C (SIGINT) aborts, instead of Node's default of exiting
 * at once: a command that follows something (events, logs) stops following, says so and exits
 * with its own code. The handler is removed afterwards, so a second Ctrl-C later kills as usual.
 */
export async function untilInterrupted<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.on('SIGINT', onInterrupt);
  try {
    return await body(controller.signal);
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/** The exit code of a command a person interrupted (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130;
