import { freeLoopbackPort } from '../apps/runtime/src/free-port.ts';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';

function asPostgres(args: string[]): void {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  execFileSync(args[0]!, args.slice(1), { uid, gid: uid, stdio: 'pipe', timeout: 60_000 });
}

export interface PrivatePostgres {
  url: string;
  restart(): void;
  stop(): void;
}

/**
 * A PostgreSQL server of its own (the machine's PostgreSQL 15 binaries, a temporary data
 * directory, a free port), so a test may restart it without disturbing any other test.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'occ-pg-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  chownSync(dir, uid, uid);
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freeLoopbackPort();
  asPostgres([`${BIN}/initdb`, '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pgctl = (...args: string[]) => asPostgres([`${BIN}/pg_ctl`, '-D', data, '-o', options, '-l', join(dir, 'log'), '-w', ...args]);
  pgctl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => pgctl('-m', 'fast', 'restart'),
    stop() {
      try {
        pgctl('-m', 'immediate', 'stop');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
