import { Argument, type Command } from 'commander';
import { CliError, EXIT } from '../exit-codes.ts';
import { OUTPUT_FORMAT_WORDS } from '../output/output-format.ts';
import { example } from '../program.ts';

interface Node {
  path: string;
  subcommands: { name: string; summary: string }[];
  options: string[];
}

/** Every command path of the tree with its subcommands and flags (aliases included). */
function walk(command: Command, path: string[] = []): Node[] {
  const subcommands = command.commands.flatMap((c) => [c.name(), ...c.aliases()].map((name) => ({ name, summary: c.summary() || c.description().split('. ')[0]! })));
  const options = command.options.flatMap((o) => [o.long, o.short].filter((flag): flag is string => Boolean(flag)));
  const here: Node = { path: path.join(' '), subcommands, options };
  return [here, ...command.commands.flatMap((c) => [c.name(), ...c.aliases()].flatMap((name) => walk(c, [...path, name])))];
}

/** The values a flag takes, where they are a known list: `-o` and its formats (table, wide, name, …). */
const FLAG_VALUES: Record<string, readonly string[]> = { '-o': OUTPUT_FORMAT_WORDS, '--output': OUTPUT_FORMAT_WORDS };

/** Global flags that take a value: the word after them is not a command. */
function valueFlags(program: Command): string[] {
  return program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((flag): flag is string => Boolean(flag)));
}

function bash(program: Command): string {
  const nodes = walk(program);
  const globals = nodes[0]!.options.join(' ');
  const cases = nodes.map((n) => `    "${n.path}") words="${[...n.subcommands.map((s) => s.name), ...(n.path ? n.options : [])].join(' ')}" ;;`).join('\n');
  return `# occ completion for bash: source <(occ completion bash)
_occ() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" skip="" words="" i w
  # Arguments (an Agent's name, a file) are skipped: only known command paths extend the path.
  local known="|${nodes.map((n) => n.path).join('|')}|"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ -n $skip ]]; then skip=""; continue; fi
    case "$w" in
      ${valueFlags(program).join('|')}) skip=1 ;;
      -*) ;;
      *) [[ $known == *"|\${path:+$path }$w|"* ]] && path="\${path:+$path }$w" ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  # After a flag with known values (-o), those values rather than commands.
  case "\${COMP_WORDS[COMP_CWORD-1]}" in
${Object.entries(FLAG_VALUES)
  .map(
    ([flag, values]) =>
      `    ${flag}) COMPREPLY=( $(compgen -W "${values.join(' ')}" -- "$cur") ); [[ \${#COMPREPLY[@]} -eq 1 && \${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null; return ;;`,
  )
  .join('\n')}
  esac
  COMPREPLY=( $(compgen -W "$words ${globals}" -- "$cur") )
}
complete -F _occ occ
`;
}

function zsh(program: Command): string {
  // zsh runs the bash function through its bash-completion layer: one script, one behaviour.
  return `# occ completion for zsh: source <(occ completion zsh)
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit; }
autoload -U +X bashcompinit && bashcompinit
${bash(program)}`;
}

function fish(program: Command): string {
  const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = ['# occ completion for fish: occ completion fish | source', 'complete -c occ -f'];
  for (const node of walk(program)) {
    const words = node.path ? node.path.split(' ') : [];
    // A command path is "seen" when each of its words is on the line and no subcommand of it yet.
    const seen = words.map((w) => `__fish_seen_subcommand_from ${w}`);
    const notYet = node.subcommands.length ? [`not __fish_seen_subcommand_from ${node.subcommands.map((s) => s.name).join(' ')}`] : [];
    const condition = words.length === 0 ? '__fish_use_subcommand' : [...seen, ...notYet].join('; and ');
    for (const sub of node.subcommands) lines.push(`complete -c occ -n ${quote(condition)} -a ${quote(sub.name)} -d ${quote(sub.summary)}`);
    if (words.length) for (const flag of node.options.filter((f) => f.startsWith('--'))) lines.push(`complete -c occ -n ${quote(seen.join('; and '))} -l ${flag.slice(2)}`);
  }
  for (const option of program.options) {
    if (!option.long) continue;
    const values = FLAG_VALUES[option.long];
    lines.push(
      `complete -c occ -l ${option.long.slice(2)}${option.short ? ` -s ${option.short.slice(1)}` : ''}${values ? ` -xa ${quote(values.join(' '))}` : ''} -d ${quote(option.description)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const SHELLS = { bash, zsh, fish } as const;

export function registerCompletionCommand(program: Command): void {
  example(
    program
      .command('completion')
      .addArgument(new Argument('<shell>').choices(Object.keys(SHELLS)))
      .description('Print a shell completion script.'),
    'source <(occ completion bash)        # add to ~/.bashrc',
    'source <(occ completion zsh)         # add to ~/.zshrc',
    'occ completion fish > ~/.config/fish/completions/occ.fish',
  ).action((shell: string) => {
    const render = SHELLS[shell as keyof typeof SHELLS];
    if (!render) throw new CliError(`Unknown shell ${shell}`, EXIT.USAGE);
    process.stdout.write(render(program));
  });
}
