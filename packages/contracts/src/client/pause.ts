/**
 * Resolves after `ms`, or at once when the signal aborts (the timer is cleared either way), so a
 * loop that waits between requests ends the moment its caller stops it (Ctrl-C in the CLI, a
 * view going away in the console). Plain timers, so it runs in Node and in a browser alike.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
