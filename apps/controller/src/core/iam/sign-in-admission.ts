import type { SignInRule } from '@occ/contracts';

/** A claim's values as rules see them: a string, or the strings of an array (other types match nothing). */
function claimValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** The rules that admit a person with these (validated) ID token claims: exact, case-sensitive matches. */
export function matchingRuleIds(rules: readonly SignInRule[], claims: Record<string, unknown>): string[] {
  return rules.filter((rule) => claimValues(claims[rule.claim]).includes(rule.value)).map((rule) => rule.id);
}

// Control characters are never part of a principal's name (NameSchema).
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** The name a person's principal gets: their email, else their username, else their name, else the subject. */
export function personName(claims: { sub: string } & Record<string, unknown>): string {
  for (const key of ['email', 'preferred_username', 'name']) {
    const value = claims[key];
    if (typeof value !== 'string') continue;
    const name = value.replace(CONTROL, '').trim().slice(0, 200).trim();
    if (name) return name;
  }
  return claims.sub.replace(CONTROL, '').trim().slice(0, 200).trim() || 'unnamed';
}
