/**
 * Whether a catalog-supplied URL may be used as a link or image source: HTTPS only, without
 * userinfo (`https://user:pass@host`). Any other scheme (http:, javascript:, data:) is refused.
 * The same rule as the picker's logos (picker/entry-presentation.ts).
 */
export function isPlainHttpsUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.username === '' && url.password === '';
}
