import { describe, expect, it } from 'vitest';
import { JsonPathError, parseJsonPath, renderJsonPath } from '../../src/output/jsonpath.ts';
import { parseOutputFormat } from '../../src/output/output-format.ts';

const render = (template: string, data: unknown) => renderJsonPath(parseJsonPath(template), data);
const page = {
  items: [
    { name: 'a', plugins: { 'openclaw:llm-task': { enabled: true }, '@x/y': { enabled: false } } },
    { name: 'b', plugins: {} },
  ],
  nextCursor: null,
};

describe('-o jsonpath: the documented subset', () => {
  it('reads fields, wildcards, indexes and quoted keys; strings raw, the rest as JSON, several results joined by a space', () => {
    expect(render('{.items[*].name}', page)).toBe('a b');
    expect(render('{.items[0].name}', page)).toBe('a');
    expect(render('{.items[-1].name}', page)).toBe('b');
    expect(render('{.items[0].plugins.openclaw:llm-task.enabled}', page)).toBe('true');
    expect(render("{.items[0].plugins['@x/y']}", page)).toBe('{"enabled":false}');
    expect(render('{.nextCursor}', page)).toBe('null');
    expect(render('{.items[*].plugins[*].enabled}', page)).toBe('true false');
    expect(render('name={.items[1].name}, count {.items[5].name}', page)).toBe('name=b, count ');
    expect(render('{.}', { a: 1 })).toBe('{"a":1}');
    expect(render('{.missing.deeper}', page)).toBe('');
  });

  it('refuses what it does not support, saying where', () => {
    const refused = (template: string) => {
      try {
        parseJsonPath(template);
      } catch (error) {
        expect(error).toBeInstanceOf(JsonPathError);
        return (error as Error).message.split(' (supported')[0];
      }
      throw new Error(`${template} was accepted`);
    };
    expect(refused('{range .items[*]}{.name}{end}')).toBe('{range} is not supported at column 2 of "{range .items[*]}{.name}{end}"');
    expect(refused('{.items[?(@.name=="a")]}')).toBe('[?(@.name=="a")] is not supported (filters, slices and unions are not) at column 8 of "{.items[?(@.name==\\"a\\")]}"');
    expect(refused('{.items[0:2]}')).toMatch(/^\[0:2\] is not supported/);
    expect(refused('{..name}')).toMatch(/^recursive descent "\.\." is not supported at column 2/);
    expect(refused('{.items')).toMatch(/^unclosed "\{" at column 1/);
    expect(refused('.items}')).toMatch(/^unmatched "\}" at column 7/);
    expect(refused('no template')).toMatch(/^no \{…\} path/);
    expect(refused('{items}')).toMatch(/^a path starts with "\."/);
  });

  it('-o takes table, wide, name, json, yaml and a valid jsonpath template; anything else is a usage error', () => {
    for (const format of ['table', 'wide', 'name', 'json', 'yaml', 'jsonpath={.items[*].id}']) expect(parseOutputFormat(format)).toBe(format);
    expect(() => parseOutputFormat('xml')).toThrow('one of table, wide, name, json, yaml or jsonpath=TEMPLATE');
    expect(() => parseOutputFormat('jsonpath={range .items}')).toThrow(/^jsonpath: \{range\} is not supported/);
  });
});
