import { describe, expect, it } from 'vitest';
import { humanPointer } from '@occ/contracts';
import { ApiError } from '@occ/contracts/client';
import { describeError } from '../../src/exit-codes.ts';

describe('paths in human output', () => {
  it('decode JSON-pointer escapes: a plugin key reads as it is typed', () => {
    expect(humanPointer('/plugins/openclaw:@openclaw~1does-not-exist-xyz')).toBe('/plugins/openclaw:@openclaw/does-not-exist-xyz');
    expect(humanPointer('/plugins/a~01/tools/x~1y')).toBe('/plugins/a~1/tools/x/y');
    expect(humanPointer('')).toBe('/');
  });

  it('an API error prints its code, message and each path decoded, as a user reads it on stderr', () => {
    const error = new ApiError(
      400,
      'INVALID_REQUEST',
      'The plugin catalog does not offer the selected plugin.',
      [{ path: '/plugins/openclaw:@openclaw~1does-not-exist-xyz', code: 'UNSUPPORTED_VALUE' }],
      'req_1',
    );
    expect(describeError(error)).toBe(
      [
        'error: INVALID_REQUEST: The plugin catalog does not offer the selected plugin.',
        '  /plugins/openclaw:@openclaw/does-not-exist-xyz: UNSUPPORTED_VALUE',
        '  (request req_1)',
      ].join('\n'),
    );
  });
});
