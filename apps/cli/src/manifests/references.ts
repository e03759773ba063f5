import { ApiError } from '@occ/contracts/client';
import { namespaceId } from '../context/resolve.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import type { PlanContext } from './object-plan.ts';
import type { ManifestDocument } from './read-manifests.ts';

const isNotFound = (error: unknown) => (error instanceof CliError && error.exitCode === EXIT.NOT_FOUND) || (error instanceof ApiError && error.status === 404);

/** What a preview shows for an id it cannot know yet: the object is created by the same apply. */
const notCreatedYet = (noun: string, name: string) => `(${noun} ${name}, not created yet)`;

/**
 * A name as an id. In a preview (dry run, diff) a name no object has yet, but that one of the
 * documents being applied creates, becomes a placeholder; anything else missing fails as apply would.
 */
export async function resolveReference(context: PlanContext, noun: string, name: string, resolve: () => Promise<string>): Promise<string> {
  try {
    return await resolve();
  } catch (error) {
    if (context.preview && isNotFound(error) && context.pending.has(`${noun}/${name}`)) {
      context.unresolved.add(`${noun}/${name}`);
      return notCreatedYet(noun, name);
    }
    throw error;
  }
}

/**
 * The Namespace id of a namespaced document, or null in a preview when the Namespace is one the
 * same apply creates (then nothing in it exists yet).
 */
export async function documentNamespace(context: PlanContext, document: ManifestDocument): Promise<string | null> {
  const ref = context.namespaceRef(document);
  const id = await resolveReference(context, 'namespace', ref ?? '', () => namespaceId(context.client, ref));
  return id === notCreatedYet('namespace', ref ?? '') ? null : id;
}

/** The Namespace a binding or a restriction is scoped to (name or id), or null: none named, everywhere. */
export async function scopeNamespaceId(context: PlanContext, ref: string | undefined): Promise<string | null> {
  return ref === undefined ? null : resolveReference(context, 'namespace', ref, () => namespaceId(context.client, ref));
}

/** A name of an object inside a Namespace that may not exist yet (null: nothing in it exists). */
export async function resolveInNamespace(context: PlanContext, ns: string | null, noun: string, name: string, resolve: (ns: string) => Promise<string>): Promise<string> {
  return resolveReference(context, noun, name, () => {
    if (ns === null) throw new CliError(`No ${noun} named ${JSON.stringify(name)}: its Namespace does not exist yet`, EXIT.NOT_FOUND, 'NOT_FOUND');
    return resolve(ns);
  });
}
