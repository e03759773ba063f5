import { describe, expect, it } from 'vitest';
import { locateJsonError, parseJsonObject } from '../../src/resources/json-text.ts';

const failure = (text: string) => {
  const result = parseJsonObject(text);
  if (result.ok) throw new Error('expected a failure');
  return result;
};

describe('the Configuration values editor parses JSON on the client', () => {
  it('a JSON object parses', () => {
    expect(parseJsonObject('{ "gateway": { "port": 1 } }')).toEqual({ ok: true, value: { gateway: { port: 1 } } });
  });

  it('a missing comma is placed at its line and column', () => {
    expect(failure('{\n  "a": 1\n  "b": 2\n}')).toMatchObject({ line: 3, column: 3, message: "Expected ',' or '}' here." });
  });

  it('a trailing comma is placed at the comma', () => {
    expect(failure('{\n  "a": [1, 2,]\n}')).toMatchObject({ line: 2, column: 13, message: 'A trailing comma is not allowed in JSON.' });
    expect(failure('{"a": 1,\n}')).toMatchObject({ line: 1, column: 8 });
  });

  it('unquoted names, single quotes, comments and bad literals', () => {
    expect(failure('{ a: 1 }')).toMatchObject({ line: 1, column: 3, message: 'Expected a property name in double quotes.' });
    expect(failure('{ "a": \'x\' }')).toMatchObject({ column: 8, message: `Unexpected character "'".` });
    expect(failure('{ // note\n}')).toMatchObject({ line: 1, column: 3 });
    expect(failure('{ "a": tru }')).toMatchObject({ column: 8 });
    expect(failure('{ "a": 01 }')).toMatchObject({ column: 9 });
  });

  it('strings: unclosed, raw line breaks, bad escapes', () => {
    expect(failure('{ "a": "x }')).toMatchObject({ message: 'This string is not closed with ".' });
    expect(failure('{ "a": "x\ny" }')).toMatchObject({ line: 1, column: 10 });
    expect(failure('{ "a": "\\q" }')).toMatchObject({ column: 9, message: 'Invalid escape sequence in a string.' });
    expect(parseJsonObject('{ "a": "\\u00e9\\n" }')).toEqual({ ok: true, value: { a: 'é\n' } });
  });

  it('empty text and a cut-off document end too early', () => {
    expect(failure('')).toMatchObject({ line: 1, column: 1, message: 'The JSON ends too early.' });
    expect(failure('{\n  "a": {\n')).toMatchObject({ line: 3, column: 1, message: 'The JSON ends too early.' });
  });

  it('text after the value', () => {
    expect(failure('{} {}')).toMatchObject({ column: 4, message: 'Unexpected text after the JSON value.' });
  });

  it('valid JSON that is not an object is refused as values', () => {
    expect(failure('  [1, 2]')).toMatchObject({ line: 1, column: 3, message: 'This must be a JSON object: { … }.' });
    expect(failure('null').message).toBe('This must be a JSON object: { … }.');
  });

  it('the scan agrees with JSON.parse on what is valid', () => {
    for (const text of ['{}', '[]', '"x"', '-0.5e+3', ' { "a" : [ true , false , null , { } ] } ', '{"\\"":"\\\\"}']) {
      expect(locateJsonError(text)).toBeNull();
      expect(() => JSON.parse(text)).not.toThrow();
    }
  });
});
