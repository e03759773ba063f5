import { describe, expect, it } from 'vitest';
import { lineTime, linesSince, parseSince, selectSince } from '../../src/logs/since.ts';

const NOW = Date.parse('2026-12-03T10:00:00.000Z');

describe('occ logs --since', () => {
  it('takes a duration or a point in time with its zone', () => {
    expect(parseSince('10m', NOW)).toBe(NOW - 600_000);
    expect(parseSince('1h30m', NOW)).toBe(NOW - 5_400_000);
    expect(parseSince('2d', NOW)).toBe(NOW - 172_800_000);
    expect(parseSince('500ms', NOW)).toBe(NOW - 500);
    expect(parseSince('2026-12-03T09:00:00Z', NOW)).toBe(Date.parse('2026-12-03T09:00:00Z'));
    expect(parseSince('2026-12-03T09:00:00+01:00', NOW)).toBe(Date.parse('2026-12-03T08:00:00Z'));
    expect(parseSince('2026-12-03', NOW)).toBe(Date.parse('2026-12-03T00:00:00Z'));
    for (const bad of ['yesterday', '10', '-5m', '2026-12-03T09:00:00', '10 m']) expect(() => parseSince(bad, NOW), bad).toThrow(/a duration such as 10m/);
  });

  it("reads the time a line carries: a leading ISO time (OpenClaw, the local driver) or a JSON event's time", () => {
    expect(lineTime('2026-12-03T09:11:07.860+00:00 [gateway] ready')).toBe(Date.parse('2026-12-03T09:11:07.860Z'));
    expect(lineTime('2026-12-03T09:11:07.860Z [occ-local] runtime started')).toBe(Date.parse('2026-12-03T09:11:07.860Z'));
    expect(lineTime('{"time":"2026-12-03T09:00:00.000Z","source":"occ-runtime","event":"startup.ready"}')).toBe(Date.parse('2026-12-03T09:00:00Z'));
    expect(lineTime('npm warn deprecated')).toBeNull();
    expect(lineTime('{"not": "an event"}')).toBeNull();
    expect(lineTime('{broken json')).toBeNull();
  });

  it('keeps the lines since then; an untimed line goes with the one above; untimed lines at the top are left out', () => {
    const log = ['untimed, before anything', '2026-12-03T08:00:00Z old', 'old continuation', '2026-12-03T09:30:00Z new', 'new continuation'];
    expect(linesSince(log, Date.parse('2026-12-03T09:00:00Z')).lines).toEqual(log.slice(3));
    expect(linesSince(log, Date.parse('2026-12-03T07:00:00Z')).lines).toEqual(log.slice(1));
  });

  it('warns when the window read starts inside the period (earlier lines may be recent too) or no line has a time', () => {
    const since = Date.parse('2026-12-03T09:00:00Z');
    expect(selectSince({ lines: ['2026-12-03T09:30:00Z a'], truncated: true }, since)).toEqual({
      lines: ['2026-12-03T09:30:00Z a'],
      truncated: true,
      warning: 'Only the last 1 lines of the log can be read; earlier lines since then are not shown.',
    });
    expect(selectSince({ lines: ['2026-12-03T08:30:00Z a', '2026-12-03T09:30:00Z b'], truncated: true }, since)).toEqual({
      lines: ['2026-12-03T09:30:00Z b'],
      truncated: false,
      warning: null,
    });
    expect(selectSince({ lines: ['x', 'y'], truncated: false }, since).warning).toBe('None of the 2 lines read carries a time, so --since cannot tell which are recent.');
    expect(selectSince({ lines: ['2026-12-03T09:10:00Z a', '2026-12-03T09:20:00Z b'], truncated: false }, since, 1)).toEqual({
      lines: ['2026-12-03T09:20:00Z b'],
      truncated: true,
      warning: null,
    });
  });
});
