/**
 * The shapes of credentials OCC knows by sight: its own API keys (`occ_`), OpenAI keys (`sk-`),
 * GitHub personal access tokens (`ghp_`) and Codex access tokens (`at-`). One security rule for
 * every place that must not repeat a credential (audit details, error pointers), so the places
 * cannot drift apart.
 *
 * A token starts where no letter or digit precedes it: `x_occ_…` and `Bearer sk-…` are caught,
 * while a word that merely contains a prefix (`chat-assistant`, `task-12345678`) is not.
 */
const TOKEN_SOURCE = '(?<![A-Za-z0-9])(?:occ_[A-Za-z0-9_-]{8,}|sk-[A-Za-z0-9_-]{8,}|ghp_[A-Za-z0-9]{8,}|at-[A-Za-z0-9._-]{8,})';
const TOKEN = new RegExp(TOKEN_SOURCE);
const TOKENS = new RegExp(TOKEN_SOURCE, 'g');

export const REDACTED = '[redacted]';

/** Whether `text` holds anything shaped like a known credential. */
export function containsCredentialToken(text: string): boolean {
  return TOKEN.test(text);
}

/** `text` with every credential-shaped run replaced by `[redacted]`. */
export function redactCredentialTokens(text: string): string {
  return text.replace(TOKENS, REDACTED);
}
