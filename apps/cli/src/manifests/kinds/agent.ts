import { AGENT_DOCUMENT_FIELDS as MANAGED, AGENT_DOCUMENT_NAMES as NAMED, resolveAgentDocument } from '../../agents/agent-document.ts';
import { configurationId, secretId } from '../../context/resolve.ts';
import { documentFields, documentName, nameOf, pick } from '../document-fields.ts';
import type { ManifestKind } from '../object-plan.ts';
import { documentNamespace, resolveInNamespace } from '../references.ts';

/**
 * `kind: Agent` — as `occ agents apply -f` takes it: the API's create body, with
 * `configuration: NAME` and `codexPat: SECRET` allowed for the ids. A field the document leaves
 * out keeps its value; a change is written with If-Match on the version read. The harness never
 * changes (a differing one is refused, not written). Saving does not deploy: `occ deploy` does.
 */
export const agentKind: ManifestKind = {
  kind: 'Agent',
  noun: 'agent',
  refOf: (body) => `agent/${nameOf(body)}`,
  async plan(context, document) {
    const { namespace: _namespace, ...fields } = documentFields(document, [...MANAGED, ...NAMED, 'namespace']);
    const name = documentName(document);
    const ns = await documentNamespace(context, document);
    const client = context.client;
    const body = await resolveAgentDocument(fields, {
      configurationId: (ref) => resolveInNamespace(context, ns, 'configuration', ref, (n) => configurationId(client, n, ref)),
      secretId: (ref) => resolveInNamespace(context, ns, 'secret', ref, (n) => secretId(client, n, ref)),
    });
    const existing = ns === null ? undefined : (await client.listAll('listAgents', { params: { ns } })).find((agent) => agent.name === name);
    const live = existing ? pick(existing, MANAGED) : null;
    const harnessChanges = existing !== undefined && body.harness !== undefined && body.harness !== existing.harness;
    const { harness: _harness, ...update } = body;
    return {
      ref: `agent/${name}`,
      id: existing?.id ?? null,
      live,
      desired: pick({ ...live, ...body }, MANAGED),
      create: async () => (await client.call('createAgent', { params: { ns: ns! }, body: body as never })).data.id,
      ...(harnessChanges
        ? { refusal: `an Agent's harness cannot change (it is ${existing.harness}): apply it under another name` }
        : {
            update: async () => {
              await client.call('updateAgent', { params: { ns: ns!, id: existing!.id }, body: update as never, ifMatch: `"${existing!.version}"` });
            },
          }),
    };
  },
};
