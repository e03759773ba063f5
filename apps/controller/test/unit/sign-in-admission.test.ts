import type { SignInRule } from '@occ/contracts';
import { describe, expect, it } from 'vitest';
import { matchingRuleIds, personName } from '../../src/core/iam/sign-in-admission.ts';

const rule = (id: string, claim: string, value: string): SignInRule => ({
  id,
  claim,
  value,
  roleId: 'role_00000000-0000-4000-8000-000000000000',
  namespaceId: null,
  resource: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('sign-in rules against ID token claims', () => {
  const rules = [rule('r1', 'groups', 'team-a'), rule('r2', 'groups', 'team-b'), rule('r3', 'department', 'finance'), rule('r4', 'groups', 'Team-A')];

  it('matches a value in an array claim or a string claim, exactly and case-sensitively', () => {
    expect(matchingRuleIds(rules, { sub: 'x', groups: ['team-a', 'other'] })).toEqual(['r1']);
    expect(matchingRuleIds(rules, { sub: 'x', groups: 'team-b', department: 'finance' })).toEqual(['r2', 'r3']);
    expect(matchingRuleIds(rules, { sub: 'x', groups: ['team-a ', 'TEAM-A', 'team'] })).toEqual([]);
  });

  it('matches nothing on a missing claim or a value of another type (no coercion)', () => {
    expect(matchingRuleIds(rules, { sub: 'x' })).toEqual([]);
    expect(matchingRuleIds(rules, { sub: 'x', groups: { 'team-a': true } })).toEqual([]);
    expect(matchingRuleIds(rules, { sub: 'x', groups: [['team-a']], department: ['finance', 7] })).toEqual(['r3']);
  });
});

describe("a person's principal name", () => {
  it('is their email, else username, else name, else the subject — without control characters', () => {
    expect(personName({ sub: 's', email: 'a@example.com', preferred_username: 'a', name: 'A' })).toBe('a@example.com');
    expect(personName({ sub: 's', email: ' ', preferred_username: 'ann', name: 'A' })).toBe('ann');
    expect(personName({ sub: 's', email: 42, name: 'Ann\u0000 Lee\n' })).toBe('Ann Lee');
    expect(personName({ sub: 'subject-1' })).toBe('subject-1');
    expect(personName({ sub: 's', name: 'x'.repeat(500) })).toHaveLength(200);
  });
});
