/**
 * The runtime's own log lines: one JSON object per line on stderr (the compute driver keeps
 * stdout and stderr in the revision's log file). Fields are codes, ids, counts and JSON
 * pointers, never token or secret values and never configuration values.
 */
export type LogFields = Record<string, string | number | boolean | null | readonly string[]>;

export function logEvent(event: string, fields: LogFields = {}): void {
  // A field never replaces the three every reader keys on (a `source` field once made a line nobody's).
  const { time: _time, source: _source, event: _event, ...rest } = fields;
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), source: 'occ-runtime', event, ...rest })}\n`);
}
