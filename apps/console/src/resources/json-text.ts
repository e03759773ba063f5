/**
 * Parses the text of a JSON object typed by a person, and when it is not one says where, as line
 * and column. Browsers word (and place) JSON.parse errors differently — Safari gives no position
 * at all — so the place comes from a small syntax scan of our own, run only when parsing failed.
 */
export type JsonObjectResult = { ok: true; value: Record<string, unknown> } | { ok: false; message: string; line: number; column: number };

export function parseJsonObject(text: string): JsonObjectResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const found = locateJsonError(text) ?? { offset: text.length, message: (error as Error).message };
    return { ok: false, message: found.message, ...lineAndColumn(text, found.offset) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'This must be a JSON object: { … }.', ...lineAndColumn(text, text.length - text.trimStart().length) };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

class JsonSyntaxError {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

/** The first syntax error of `text` as JSON (RFC 8259), or null when there is none. */
export function locateJsonError(text: string): { offset: number; message: string } | null {
  let pos = 0;
  const fail = (message: string, at = pos): never => {
    throw new JsonSyntaxError(at, at >= text.length ? 'The JSON ends too early.' : message);
  };
  const sticky = (pattern: RegExp): string | null => {
    pattern.lastIndex = pos;
    const match = pattern.exec(text);
    return match ? match[0] : null;
  };
  const space = () => {
    pos += sticky(/[ \t\n\r]*/y)!.length;
  };
  const unexpected = () => fail(`Unexpected character ${JSON.stringify(text[pos])}.`);

  const string = () => {
    const opening = pos++;
    for (;;) {
      const char = text[pos];
      if (char === undefined) return fail('This string is not closed with ".', opening);
      if (char === '"') return void pos++;
      if (char === '\\') {
        const next = text[pos + 1];
        if (next !== undefined && '"\\/bfnrt'.includes(next)) pos += 2;
        else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) pos += 6;
        else fail('Invalid escape sequence in a string.');
      } else if (char.charCodeAt(0) < 0x20) {
        fail('A string may not contain a line break or control character (write \\n).');
      } else pos++;
    }
  };

  const container = (close: '}' | ']', member: () => void) => {
    pos++;
    space();
    if (text[pos] === close) return void pos++;
    for (;;) {
      member();
      space();
      if (text[pos] === close) return void pos++;
      if (text[pos] !== ',') fail(`Expected ',' or '${close}' here.`);
      const comma = pos++;
      space();
      if (text[pos] === close) fail('A trailing comma is not allowed in JSON.', comma);
    }
  };

  const value = (): void => {
    space();
    const char = text[pos];
    if (char === '{') {
      return container('}', () => {
        space();
        if (text[pos] !== '"') fail('Expected a property name in double quotes.');
        string();
        space();
        if (text[pos] !== ':') fail("Expected ':' after the property name.");
        pos++;
        value();
      });
    }
    if (char === '[') return container(']', value);
    if (char === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, pos)) return void (pos += word.length);
    }
    const number = sticky(/-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y);
    if (number) return void (pos += number.length);
    unexpected();
  };

  try {
    value();
    space();
    if (pos < text.length) fail('Unexpected text after the JSON value.');
    return null;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { offset: error.offset, message: error.message };
    return null; // nested too deeply for this scan: the caller falls back to the browser's words
  }
}
