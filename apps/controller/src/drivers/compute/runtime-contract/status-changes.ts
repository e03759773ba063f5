import { setTimeout as sleep } from 'node:timers/promises';
import { fetchStartupStatus, type StatusLongPoll, type StatusRead } from './startup-status.ts';

/** How long one wait is held at most (the worker's convergence poll ends it sooner anyway). */
const STATUS_CHANGE_WAIT_MS = 20_000;

/**
 * The last status version a driver read of each revision's runtime, and the long-poll that waits
 * for the next one (ComputeDriver.awaitStatusChange; the runtime's side: status-server.ts). A
 * process that ends resets the connection, which ends the wait too.
 */
export class StatusChanges {
  private readonly seen = new Map<string, { version: string; poll: StatusPoll }>();

  constructor(private readonly probeTimeoutMs: number) {}

  /** After every status read of a revision's runtime (`key`) on a loopback port: where it answered and which version. */
  record(key: string, port: number, token: string, read: StatusRead): void {
    this.recordRead(key, read, (longPoll, signal) => fetchStartupStatus(port, token, signal, this.probeTimeoutMs, longPoll));
  }

  /** The same, for a target that reaches the status its own way (the kubernetes pod proxy): `poll` asks it again as a long-poll. */
  recordRead(key: string, read: StatusRead, poll: StatusPoll): void {
    if (typeof read === 'object' && read.version !== undefined) this.seen.set(key, { version: read.version, poll });
    else this.seen.delete(key);
  }

  forget(key: string): void {
    this.seen.delete(key);
  }

  /**
   * Resolves when the runtime's status is no longer the version last read, its process ended, or
   * the wait ran out. With no version to wait on (no status served yet, or a runtime that names
   * none) there is nothing to be told: it only ends with the wait (the convergence poll, the backstop,
   * comes first).
   */
  async awaitChange(key: string, signal: AbortSignal): Promise<void> {
    const last = this.seen.get(key);
    if (last === undefined) return sleep(STATUS_CHANGE_WAIT_MS, undefined, { signal });
    await last.poll({ seen: last.version, waitMs: STATUS_CHANGE_WAIT_MS }, signal);
  }
}

/** One long-poll on a runtime's status; whatever it answers (or how it fails) ends the wait. */
export type StatusPoll = (longPoll: StatusLongPoll, signal: AbortSignal) => Promise<unknown>;
