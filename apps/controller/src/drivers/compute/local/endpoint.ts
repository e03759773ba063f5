import { readIfExists } from '@occ/host-io/private-files';

/** Where the runtime process says it serves its status (`endpoint.json`, written by the runtime). */
export interface Endpoint {
  pid: number;
  statusPort: number;
  startupId: string;
}

/**
 * The endpoint file of the process we started, or null: missing, malformed, or written by any
 * other process (a previous start, a stray) is not ours to trust.
 */
export function readEndpoint(path: string, pid: number): Endpoint | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readIfExists(path) ?? 'null');
  } catch {
    return null;
  }
  const e = parsed as Partial<Endpoint> | null;
  if (!e || e.pid !== pid || !Number.isInteger(e.statusPort) || e.statusPort! < 1 || e.statusPort! > 65535) return null;
  if (typeof e.startupId !== 'string' || !/^[A-Za-z0-9_-]{16,64}$/.test(e.startupId)) return null;
  return { pid, statusPort: e.statusPort!, startupId: e.startupId };
}
