import { principalId } from '../../commands/iam/references.ts';
import { planByContent } from '../content-identity.ts';
import { documentFields } from '../document-fields.ts';
import type { ManifestKind } from '../object-plan.ts';
import { resolveReference, scopeNamespaceId } from '../references.ts';

const FIELDS = ['principal', 'principalId', 'action', 'resourceKind', 'namespace', 'namespaceId', 'resourceId'] as const;

/** `delete:agent@prod for ci-deployer`: a restriction has no name, so apply names it by what it denies, in the file's words. */
function refOf(body: Record<string, unknown>): string {
  const principal = body.principal ?? body.principalId;
  const where = `${String(body.namespace ?? body.namespaceId ?? '*')}${body.resourceId ? `[${String(body.resourceId)}]` : ''}`;
  return `restriction/${String(body.action)}:${String(body.resourceKind)}@${where}${principal ? ` for ${String(principal)}` : ''}`;
}

/**
 * `kind: Restriction` — as `occ restrictions create -f` takes it: `action`, `resourceKind`, and
 * optionally `principal`, `namespace` (names or ids) and `resourceId`; what it leaves out, it
 * applies to everyone and everywhere. A restriction is what it denies: one denying the same
 * exists (unchanged) or not (created).
 */
export const restrictionKind: ManifestKind = {
  kind: 'Restriction',
  noun: 'restriction',
  refOf,
  async plan(context, document) {
    const fields = documentFields(document, FIELDS);
    const client = context.client;
    const principalRef = (fields.principal ?? fields.principalId) as string | undefined;
    const desired = {
      principalId: principalRef === undefined ? null : await resolveReference(context, 'principal', principalRef, () => principalId(client, principalRef)),
      action: fields.action,
      resourceKind: fields.resourceKind,
      namespaceId: await scopeNamespaceId(context, (fields.namespace ?? fields.namespaceId) as string | undefined),
      resourceId: fields.resourceId ?? null,
    };
    // What the document leaves open is absent from the create body (null in the API's answer).
    const body = Object.fromEntries(Object.entries(desired).filter(([, value]) => value !== null));
    return planByContent(
      refOf(document.body),
      desired,
      await client.listAll('listRestrictions', {}),
      (r) => ({ principalId: r.principalId, action: r.action, resourceKind: r.resourceKind, namespaceId: r.namespaceId, resourceId: r.resourceId }),
      async () => (await client.call('createRestriction', { body: body as never })).data.id,
    );
  },
};
