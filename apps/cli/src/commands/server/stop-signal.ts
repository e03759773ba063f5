/**
 * Resolves on the first signal that asks a server process to stop: SIGINT (Ctrl-C), SIGTERM, and
 * SIGHUP (its terminal closed; by default it would end the process at once and leave the Agents'
 * runtimes running with no parent). Once the terminal or the pipes that read the output are gone,
 * writing a log line fails (EPIPE); that must not end the process before it has stopped what it
 * runs, so output errors are dropped from then on.
 */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  return new Promise((done) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => done(signal));
  });
}
