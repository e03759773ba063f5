import { principalId, roleId } from '../../commands/iam/references.ts';
import { planByContent } from '../content-identity.ts';
import { documentFields } from '../document-fields.ts';
import type { ManifestKind } from '../object-plan.ts';
import { resolveReference, scopeNamespaceId } from '../references.ts';

const FIELDS = ['principal', 'principalId', 'role', 'roleId', 'namespace', 'namespaceId', 'resource'] as const;

/** `deployer@team-a for ci-deployer`: a binding has no name, so apply names it by what it grants, in the file's words. */
function refOf(body: Record<string, unknown>): string {
  const resource = body.resource as { kind?: unknown; id?: unknown } | undefined;
  const where = `${String(body.namespace ?? body.namespaceId ?? '*')}${resource ? `[${String(resource.kind)}:${String(resource.id)}]` : ''}`;
  return `accessbinding/${String(body.role ?? body.roleId)}@${where} for ${String(body.principal ?? body.principalId)}`;
}

/**
 * `kind: AccessBinding` — as `occ bindings create -f` takes it: `principal`, `role` and an
 * optional `namespace` by name (or the API's ids), and `resource: {kind, id}`. No namespace means
 * the whole Installation: a binding's scope never comes from `-n` or the context. A binding is
 * what it grants, so one granting the same exists (unchanged) or not (created).
 */
export const accessBindingKind: ManifestKind = {
  kind: 'AccessBinding',
  noun: 'accessbinding',
  refOf,
  async plan(context, document) {
    const fields = documentFields(document, FIELDS);
    const client = context.client;
    const principalRef = String(fields.principal ?? fields.principalId ?? '');
    const roleRef = String(fields.role ?? fields.roleId ?? '');
    const desired = {
      principalId: await resolveReference(context, 'principal', principalRef, () => principalId(client, principalRef)),
      roleId: await resolveReference(context, 'role', roleRef, () => roleId(client, roleRef)),
      namespaceId: await scopeNamespaceId(context, (fields.namespace ?? fields.namespaceId) as string | undefined),
      resource: (fields.resource ?? null) as { kind: string; id: string } | null,
    };
    const { namespaceId: ns, resource, ...who } = desired;
    return planByContent(
      refOf(document.body),
      desired,
      await client.listAll('listAccessBindings', {}),
      (b) => ({ principalId: b.principalId, roleId: b.roleId, namespaceId: b.namespaceId, resource: b.resource }),
      async () => (await client.call('createAccessBinding', { body: { ...who, ...(ns ? { namespaceId: ns } : {}), ...(resource ? { resource } : {}) } as never })).data.id,
    );
  },
};
