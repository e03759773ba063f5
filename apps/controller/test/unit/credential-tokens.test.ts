import { describe, expect, it } from 'vitest';
import { redact } from '../../src/core/audit/redact.ts';
import { containsCredentialToken, redactCredentialTokens } from '../../src/core/credential-tokens.ts';
import { invalid } from '../../src/core/errors.ts';
import { toErrorBody } from '../../src/http/error-mapping.ts';

const KEY = `occ_${'A'.repeat(43)}`;

describe('credential tokens', () => {
  it.each([KEY, 'sk-proj_abcdefgh', 'ghp_abcdEFGH1234', 'at-abc.def_ghi', `x_${KEY}`, `Bearer ${KEY}`, `{"token":"${KEY}"}`, `a/${KEY}/b`])('recognises %j', (text) => {
    expect(containsCredentialToken(text)).toBe(true);
    expect(redactCredentialTokens(text)).not.toContain(KEY.slice(4));
    expect(redactCredentialTokens(text)).toContain('[redacted]');
  });

  it.each(['occ_short', 'sk-1234567', 'chat-assistant-prod', 'task-12345678', 'ghp_-------- ', 'agt_0b9c1d2e-1f20-4a1b-8c3d-4e5f60718293', ''])('leaves %j alone', (text) => {
    expect(containsCredentialToken(text)).toBe(false);
    expect(redactCredentialTokens(text)).toBe(text);
  });

  it('redacts every token in a text, keeping the rest', () => {
    expect(redactCredentialTokens(`a ${KEY} b sk-abcdefgh12 c`)).toBe('a [redacted] b [redacted] c');
  });

  it('gives the same answer on repeated calls (no regex state carried between them)', () => {
    expect([containsCredentialToken(KEY), containsCredentialToken(KEY), containsCredentialToken(KEY)]).toEqual([true, true, true]);
  });
});

describe('the places that must not repeat a credential apply the one rule', () => {
  it('audit details', () => {
    expect(redact({ note: `x_${KEY}`, label: 'chat-assistant-prod' })).toEqual({ note: 'x_[redacted]', label: 'chat-assistant-prod' });
  });

  it('error pointers name a credential-shaped key as [redacted], other segments as sent', () => {
    const body = toErrorBody(invalid('bad', [{ path: `/plugins/x_${KEY}/tools/chat-assistant-prod`, code: 'INVALID_VALUE' }]));
    expect(body.details).toEqual([{ path: '/plugins/[redacted]/tools/chat-assistant-prod', code: 'INVALID_VALUE' }]);
  });
});
