import { describe, expect, it } from 'vitest';
import { rfc3339Instant } from '../src/resources/audit-query.ts';

describe('rfc3339Instant: the UTC instant an audit filter time names', () => {
  it('reads Z and numeric offsets, fractions to the microsecond, lower-case t and z', () => {
    expect(rfc3339Instant('2024-05-01T10:00:00Z')).toBe('2024-05-01T10:00:00.000000Z');
    expect(rfc3339Instant('2024-05-01T12:00:00+02:00')).toBe('2024-05-01T10:00:00.000000Z');
    expect(rfc3339Instant('2024-05-01t10:00:00.5z')).toBe('2024-05-01T10:00:00.500000Z');
    expect(rfc3339Instant('2024-05-01T10:00:00.123456789Z')).toBe('2024-05-01T10:00:00.123456Z');
    // Offsets PostgreSQL would refuse (beyond ±15:59) are converted here.
    expect(rfc3339Instant('2024-05-01T00:30:00+23:59')).toBe('2024-04-30T00:31:00.000000Z');
    expect(rfc3339Instant('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000000Z');
  });

  it('leap days and a leap second (rolled into the next minute)', () => {
    expect(rfc3339Instant('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000000Z');
    expect(rfc3339Instant('2000-02-29T00:00:00Z')).not.toBeNull();
    expect(rfc3339Instant('2016-12-31T23:59:60Z')).toBe('2017-01-01T00:00:00.000000Z');
  });

  it('refuses what is no timestamp, a day that does not exist, or a year outside 1–9999', () => {
    for (const text of [
      'yesterday',
      '2024-05-01',
      '2024-05-01T10:00:00',
      '2024-05-01 10:00:00Z',
      '2024-05-01T10:00Z',
      '2024-13-01T00:00:00Z',
      '2024-05-01T24:00:00Z',
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00+01:00',
      '9999-12-31T23:59:59-01:00',
    ])
      expect(rfc3339Instant(text), text).toBeNull();
  });
});
