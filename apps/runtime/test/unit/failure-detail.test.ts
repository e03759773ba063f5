import { describe, expect, it } from 'vitest';
import { policyFailureDetail } from '../../src/failure-detail.ts';

describe('policyFailureDetail', () => {
  const violation = (path: string, code = 'UNSUPPORTED_VALUE' as const) => ({ path, code, message: 'fixed text' });

  it('names the first violation at a selection: its key (unescaped) and where inside it', () => {
    expect(policyFailureDetail([violation('/plugins/openclaw:@openclaw~1does-not-exist-xyz')])).toEqual({
      plugin: 'openclaw:@openclaw/does-not-exist-xyz',
      violation: { code: 'UNSUPPORTED_VALUE', at: '' },
    });
    expect(policyFailureDetail([violation('', 'INVALID_VALUE' as never), violation('/plugins/browser/tools/a~1b', 'INVALID_VALUE' as never)])).toEqual({
      plugin: 'browser',
      violation: { code: 'INVALID_VALUE', at: '/tools/a~1b' },
    });
  });

  it('has none when no violation concerns a selection (a malformed base configuration, a bad pointer)', () => {
    expect(policyFailureDetail([])).toBeUndefined();
    expect(policyFailureDetail([violation(''), violation('/plugins'), violation('/configuration/x'), violation('/plugins/a~2')])).toBeUndefined();
  });
});
