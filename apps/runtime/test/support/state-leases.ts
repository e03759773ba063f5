import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pinnedToolchain } from '../../src/toolchain.ts';

export interface StateLease {
  scope: string;
  key: string;
  /** How long it still holds, from the row's own expiry. */
  msLeft: number;
  /** The process the row names as its holder (OpenClaw takes a lease back from a dead one), null when it names none. */
  ownerPid: number | null;
}

// Read with the pinned Node's node:sqlite, read-only: the tests' own Node may be one without it.
const READ_LEASES = `
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
const path = process.argv[1];
let rows = [];
if (existsSync(path)) {
  // A read while OpenClaw writes (a runtime stopping) waits for its lock instead of failing "database is locked".
  const db = new DatabaseSync(path, { readOnly: true, timeout: 10000 });
  try {
    rows = db.prepare('SELECT scope, lease_key AS key, expires_at - ? AS msLeft, payload_json AS payload FROM state_leases').all(Date.now());
  } catch (error) {
    if (!/no such table/.test(String(error))) throw error;
  } finally {
    db.close();
  }
}
const ownerPid = (payload) => {
  try {
    const pid = JSON.parse(payload ?? 'null')?.owner?.pid;
    return Number.isSafeInteger(pid) ? pid : null;
  } catch {
    return null;
  }
};
process.stdout.write(JSON.stringify(rows.map(({ payload, ...row }) => ({ ...row, ownerPid: ownerPid(payload) }))));
`;

/** The leases OpenClaw holds in an Agent's state database (`<state>/state/openclaw.sqlite`), as rows say; none before it exists. */
export function stateLeases(stateDir: string): StateLease[] {
  const out = execFileSync(pinnedToolchain().nodeBinary, ['--no-warnings', '--input-type=module', '-e', READ_LEASES, join(stateDir, 'state', 'openclaw.sqlite')], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as StateLease[];
}
