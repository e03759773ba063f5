import { describe, expect, it } from 'vitest';
import { isJsonObject } from '../src/index.ts';

describe('isJsonObject', () => {
  it.each([{}, { a: 1 }, Object.create(null), JSON.parse('{"__proto__":1}')])('accepts the object %j', (value) => {
    expect(isJsonObject(value)).toBe(true);
  });

  it.each([null, undefined, [], [{}], 'x', 0, true])('refuses %j', (value) => {
    expect(isJsonObject(value)).toBe(false);
  });
});
