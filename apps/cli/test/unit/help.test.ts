import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { openclawCuratedCatalog } from '@occ/policy';
import { buildProgram } from '../../src/program.ts';

/** Every command a person can run (a command with no subcommands), with its full name. */
function leaves(command: Command, path: string[] = []): Array<{ name: string; command: Command }> {
  if (command.commands.length === 0) return [{ name: path.join(' '), command }];
  return command.commands.flatMap((child) => leaves(child, [...path, child.name()]));
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => void (text += chunk), writeErr: (chunk) => void (text += chunk) });
  command.outputHelp();
  return text;
}

describe('occ --help', () => {
  const program = buildProgram();
  const commands = leaves(program);

  it('covers the command groups the issue names', () => {
    const names = new Set(commands.map((c) => c.name.split(' ')[0]));
    for (const group of [
      'login',
      'context',
      'namespaces',
      'secrets',
      'configurations',
      'agents',
      'plugins',
      'revisions',
      'deploy',
      'status',
      'logs',
      'keys',
      'roles',
      'bindings',
      'audit',
      'completion',
      'up',
      'worker',
    ]) {
      expect(names, group).toContain(group);
    }
  });

  it('shows a description and an `occ …` example on every command (up and worker print their own usage)', () => {
    const missing = commands
      .filter(({ name }) => name !== 'up' && name !== 'worker')
      .filter(({ name, command }) => {
        const help = helpOf(command);
        return !command.description() || !new RegExp(`Examples?:\\n  (occ|source|printf) .*${name.split(' ').at(-1)}`).test(help);
      })
      .map(({ name }) => name);
    expect(missing).toEqual([]);
  });

  it('names only plugins (and their tools) the bundled catalog offers in its examples', () => {
    const catalog = new Map(openclawCuratedCatalog().plugins.map((plugin) => [plugin.id, plugin.tools ?? []]));
    const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];
    const examples = all(program).flatMap((command) =>
      helpOf(command)
        .split('\n')
        .filter((line) => /^ {2}occ /.test(line)),
    );
    const named = examples.flatMap((line) => [...line.matchAll(/(?:--plugin |plugins show )(openclaw:\S+)/g)].map((m) => ({ line, key: m[1]! })));
    // The agents and plugins commands show plugins; if they stop, this test checks nothing.
    expect(named.length).toBeGreaterThanOrEqual(3);
    expect(named.filter(({ key }) => !catalog.has(key.slice('openclaw:'.length)))).toEqual([]);
    const tools = examples.flatMap((line) => {
      const plugin = /--plugin openclaw:(\S+)/.exec(line)?.[1];
      return [...line.matchAll(/--tool ([^=\s]+)=/g)].map((m) => ({ line, plugin, tool: m[1]! }));
    });
    expect(tools.filter(({ plugin, tool }) => !(catalog.get(plugin ?? '') ?? []).includes(tool))).toEqual([]);
  });
});
