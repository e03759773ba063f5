import { isAbsolute, join } from 'node:path';
import { CliError, EXIT } from '../../exit-codes.ts';
import { readSecretValue } from '../../input/read-input.ts';
import { documentFields, documentName, nameOf } from '../document-fields.ts';
import type { ManifestKind } from '../object-plan.ts';
import { documentNamespace } from '../references.ts';

/**
 * `kind: Secret` — created when missing, with its value from `fromEnv: VARIABLE` or
 * `fromFile: PATH` (relative to the manifest), never written in the manifest itself. Values are
 * write-only, so an existing Secret is always `unchanged`: apply never rotates one
 * (`occ secrets set` does).
 */
export const secretKind: ManifestKind = {
  kind: 'Secret',
  noun: 'secret',
  refOf: (body) => `secret/${nameOf(body)}`,
  async plan(context, document) {
    if (document.body.value !== undefined) {
      throw new CliError(`a Secret's value is not written in a manifest (it would sit in a file, in version control): give fromEnv: VARIABLE or fromFile: PATH`, EXIT.USAGE);
    }
    const { fromEnv, fromFile } = documentFields(document, ['name', 'namespace', 'fromEnv', 'fromFile']);
    const name = documentName(document);
    const ns = await documentNamespace(context, document);
    const existing = ns === null ? undefined : (await context.client.listAll('listSecrets', { params: { ns } })).find((secret) => secret.name === name);
    const sources = [fromEnv, fromFile].filter((source) => source !== undefined);
    if (!existing && (sources.length !== 1 || sources.some((source) => typeof source !== 'string'))) {
      throw new CliError(`a new Secret needs its value from exactly one of fromEnv: VARIABLE or fromFile: PATH`, EXIT.USAGE);
    }
    return {
      ref: `secret/${name}`,
      id: existing?.id ?? null,
      live: existing ? { name } : null,
      desired: { name },
      async create() {
        const path = typeof fromFile === 'string' ? (isAbsolute(fromFile) ? fromFile : join(document.directory, fromFile)) : undefined;
        const value = await readSecretValue(path ? { fromFile: path } : { fromEnv: fromEnv as string });
        return (await context.client.call('createSecret', { params: { ns: ns! }, body: { name, value } })).data.id;
      },
    };
  },
};
