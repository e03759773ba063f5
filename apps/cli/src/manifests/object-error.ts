import { describeError, exitCodeOf } from '../exit-codes.ts';
import type { KindedDocument } from './order-manifests.ts';

/**
 * Reports an object apply or diff could not handle on stderr, naming the object and its file,
 * and answers its exit code: the others go on (they may not depend on it).
 */
export function reportObjectError({ document, kind }: KindedDocument, error: unknown): number {
  process.stderr.write(`${describeError(error).replace(/^error: /, `error: ${kind.refOf(document.body)} (${document.source}): `)}\n`);
  return exitCodeOf(error);
}
