import { resolveSecretBindings } from '../../configurations/secret-bindings.ts';
import { secretId } from '../../context/resolve.ts';
import { documentFields, documentName, nameOf, pick } from '../document-fields.ts';
import type { ManifestKind } from '../object-plan.ts';
import { documentNamespace, resolveInNamespace } from '../references.ts';

const MANAGED = ['name', 'values', 'secretBindings'] as const;

/**
 * `kind: Configuration` — as `occ configurations apply -f` takes it: `values`, and
 * `secretBindings` that may name their Secret (`{ secret: NAME }`). A field the document leaves
 * out keeps its value; a changed one is written with If-Match on the generation read.
 */
export const configurationKind: ManifestKind = {
  kind: 'Configuration',
  noun: 'configuration',
  refOf: (body) => `configuration/${nameOf(body)}`,
  async plan(context, document) {
    const { namespace: _namespace, ...body } = documentFields(document, [...MANAGED, 'namespace']);
    const name = documentName(document);
    const ns = await documentNamespace(context, document);
    if (body.secretBindings !== undefined) {
      body.secretBindings = await resolveSecretBindings(body.secretBindings, (secret) =>
        resolveInNamespace(context, ns, 'secret', secret, (n) => secretId(context.client, n, secret)),
      );
    }
    const existing = ns === null ? undefined : (await context.client.listAll('listConfigurations', { params: { ns } })).find((c) => c.name === name);
    const live = existing ? pick(existing, MANAGED) : null;
    return {
      ref: `configuration/${name}`,
      id: existing?.id ?? null,
      live,
      desired: pick({ ...live, ...body }, MANAGED),
      create: async () => (await context.client.call('createConfiguration', { params: { ns: ns! }, body: body as never })).data.id,
      update: async () => {
        await context.client.call('updateConfiguration', { params: { ns: ns!, id: existing!.id }, body: body as never, ifMatch: `"${existing!.generation}"` });
      },
    };
  },
};
