import { CliError, EXIT } from '../exit-codes.ts';
import type { ManifestDocument } from './read-manifests.ts';

/*
 * Errors here are thrown while an object is planned: the caller (reportObjectError) names the
 * object and its file, so the messages do not.
 */

/**
 * The document's fields for its kind: `kind` removed, anything the kind does not know refused by
 * name before a request is sent (the API's closed schemas would refuse it on a write, but an
 * unchanged object is never written, so a typo would pass silently).
 */
export function documentFields(document: ManifestDocument, allowed: readonly string[]): Record<string, unknown> {
  const { kind: _kind, ...fields } = document.body;
  const unknown = Object.keys(fields).filter((field) => !allowed.includes(field));
  if (unknown.length > 0) throw new CliError(`${String(_kind)} has no field ${unknown.join(', ')} (it has ${allowed.join(', ')})`, EXIT.USAGE);
  return fields;
}

/** The document's `name`, required of every kind that has one. */
export function documentName(document: ManifestDocument): string {
  const name = document.body.name;
  if (typeof name !== 'string' || name === '') throw new CliError('name is required', EXIT.USAGE);
  return name;
}

/** The name a document gives, for messages (`configuration/(no name)` when it gives none). */
export function nameOf(body: Record<string, unknown>): string {
  return typeof body.name === 'string' && body.name !== '' ? body.name : '(no name)';
}

/** Only these keys of an object, in this order (a live object projected onto what a document sets). */
export function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => Object.hasOwn(source, key)).map((key) => [key, source[key]]));
}
