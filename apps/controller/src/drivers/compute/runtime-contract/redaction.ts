import { REDACTED } from '../../../core/credential-tokens.ts';

/**
 * What a reader of a runtime's log or of its gateway's reply never sees: the runtime's tokens and
 * the Secret values delivered to it, replaced whole by `[redacted]`. One rule for every
 * ComputeDriver (local, docker, kubernetes) and for the chat relay (gateway-chat.ts).
 */

/** Shorter values are not redacted (they would garble ordinary text); docs/operations.md says so. */
const MIN_REDACTED_LENGTH = 4;

export const isRedactable = (value: string): boolean => value.length >= MIN_REDACTED_LENGTH;

/**
 * The values worth redacting, each once, longest first: a value that contains a shorter one is
 * replaced whole before the shorter one could cut it apart.
 */
export function redactable(values: readonly string[]): string[] {
  return [...new Set(values.filter(isRedactable))].sort((a, b) => b.length - a.length);
}

/** `text` with each of `secrets` (as `redactable` lists them) replaced. */
export function redactText(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.replaceAll(secret, REDACTED), text);
}

/** A redactor for whole log lines: called before a line is cut to size, so no part of a value survives a cut. */
export function lineRedactor(values: readonly string[]): (line: string) => string {
  const secrets = redactable(values);
  return (line) => redactText(line, secrets);
}
