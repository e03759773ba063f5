const MAX_LINK_LENGTH = 8192;

const UNSAFE = /[\s\u0000-\u001f\u007f-\u009f]/u;

/**
 * A link or logo survives only as a public HTTPS URL: no userinfo, no whitespace or control
 * characters, at most 8192 characters. Anything else (including a non-string) is dropped.
 */
export function publicHttpsUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LINK_LENGTH || UNSAFE.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hostname === '') return undefined;
  // The raw text must not smuggle userinfo past the parser (e.g. an `@` before the host).
  if (!value.toLowerCase().startsWith('https://') || value.slice(8).split(/[/?#]/u, 1)[0]!.includes('@')) return undefined;
  // The normalized form is what leaves OCC; normalizing may percent-encode, so bound it again.
  return url.href.length <= MAX_LINK_LENGTH ? url.href : undefined;
}
