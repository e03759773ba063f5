import { YAMLParseError } from 'yaml';

/**
 * Why `-f FILE` is not a document, as a person reads it: where (line and column), what, and the
 * `yaml` package's code frame (the lines around it with a caret), indented under the message.
 * JSON is parsed as YAML, so JSON syntax errors read the same way.
 */
export function describeSyntaxError(path: string, error: unknown): string {
  const intro = `${path} is not valid JSON or YAML`;
  if (!(error instanceof YAMLParseError)) return `${intro}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  const [head = '', ...rest] = error.message.split('\n');
  // The package ends its first line with " at line L, column C:" and puts the frame below it.
  const what = head.replace(/ at line \d+, column \d+:$/, '');
  const at = error.linePos?.[0];
  const frame = trimBlankLines(rest).map((line) => `  ${line}`);
  return [`${intro}: ${at ? `line ${at.line}, column ${at.col}: ` : ''}${what}`, ...frame].join('\n');
}

function trimBlankLines(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === '') start++;
  while (end > start && lines[end - 1]!.trim() === '') end--;
  return lines.slice(start, end);
}
