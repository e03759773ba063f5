import { documentFields, documentName, nameOf } from '../document-fields.ts';
import type { ManifestKind } from '../object-plan.ts';

/** `kind: Namespace` — a name only: applied, it exists. */
export const namespaceKind: ManifestKind = {
  kind: 'Namespace',
  noun: 'namespace',
  refOf: (body) => `namespace/${nameOf(body)}`,
  async plan({ client }, document) {
    const body = documentFields(document, ['name']);
    const name = documentName(document);
    const existing = (await client.listAll('listNamespaces', {})).find((ns) => ns.name === name);
    return {
      ref: `namespace/${name}`,
      id: existing?.id ?? null,
      live: existing ? { name: existing.name } : null,
      desired: body,
      create: async () => (await client.call('createNamespace', { body: { name } })).data.id,
    };
  },
};
