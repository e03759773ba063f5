/**
 * Revisions in the console's words: by their number ("revision 3"), never their id. The Agent
 * names its active revision by id only; the number comes from another read (the drift, a
 * deployment status), so until that answer is in the words say so rather than show the id.
 */

/** What is known of the active revision's number: the read that carries it, for which revision, and how it went. */
export interface RevisionNumberRead {
  status: 'loading' | 'loaded' | 'error';
  /** The revision id that read was about (null: it found no active revision). */
  revisionId: string | null | undefined;
  revision: number | null | undefined;
}

export function activeRevisionWords(activeRevisionId: string | null, read: RevisionNumberRead): string {
  if (activeRevisionId === null) return 'none yet';
  if (read.revisionId === activeRevisionId && typeof read.revision === 'number') return `revision ${read.revision}`;
  if (read.status === 'error') return 'a revision whose number could not be read';
  return 'revision …';
}
