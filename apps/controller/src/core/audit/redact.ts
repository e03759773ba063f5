import { REDACTED, redactCredentialTokens } from '../credential-tokens.ts';

// Keys whose values are never written to an audit event, whatever a caller put there.
const SENSITIVE_KEY = /(value|token|secret|password|passphrase|credential|apikey|api_key|authorization|^key$)/i;
// Keys that merely name a sensitive thing by id are safe and stay readable.
const SAFE_KEY = /(id|ids|name|names|ref|kind|count)$/i;
const BEARER = /\b(bearer\s+)[^\s"]+/gi;

/** Defence in depth for audit details: drop sensitive keys, scrub token-shaped strings. */
export function redact(input: unknown, depth = 0): unknown {
  if (depth > 8) return '[truncated]';
  if (typeof input === 'string') return redactCredentialTokens(input.replace(BEARER, `$1${REDACTED}`));
  if (Array.isArray(input)) return input.slice(0, 100).map((v) => redact(v, depth + 1));
  if (input && typeof input === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(input)) {
      out[k] = SENSITIVE_KEY.test(k) && !SAFE_KEY.test(k) ? REDACTED : redact(v, depth + 1);
    }
    return out;
  }
  return input;
}
