import { describe, expect, it } from 'vitest';
import { DeliveredValues } from '../../src/drivers/compute/runtime-contract/delivered-values.ts';

describe('the values a driver delivered, kept to redact a revision’s log and replies (delivered-values.ts)', () => {
  it('keeps each value once, newest first, up to 16 per revision; values too short to redact are not kept', () => {
    const values = new DeliveredValues();
    values.remember('agt_a/rev_1', ['first-value', 'abc', 'first-value']);
    expect(values.of('agt_a/rev_1')).toEqual(['first-value']);
    for (let i = 0; i < 20; i++) values.remember('agt_a/rev_1', [`rotated-${i}`]);
    const kept = values.of('agt_a/rev_1');
    expect(kept).toHaveLength(16);
    expect(kept[0]).toBe('rotated-19');
    expect(kept).not.toContain('first-value');
    expect(values.of('agt_a/rev_2')).toEqual([]);
  });

  it('forgets one revision, or every revision of a deleted Agent and nothing of another', () => {
    const values = new DeliveredValues();
    values.remember('agt_a/rev_1', ['value-a1']);
    values.remember('agt_a/rev_2', ['value-a2']);
    values.remember('agt_ab/rev_3', ['value-ab']);
    values.forget('agt_a/rev_1');
    expect(values.of('agt_a/rev_1')).toEqual([]);
    values.forgetAgent('agt_a');
    expect(values.of('agt_a/rev_2')).toEqual([]);
    expect(values.of('agt_ab/rev_3')).toEqual(['value-ab']);
  });
});
