import type { TSchema } from '@sinclair/typebox';
import { DryRunQuerySchema, ListOf, ListQuerySchema } from '../common.ts';
import type { ResourceKind } from '../iam.ts';
import { NsChildParams, NsParams } from './params.ts';
import { CREATE_ERRORS, MUTATION_ERRORS, READ_ERRORS, type RouteContract } from './route-contract.ts';

interface CrudSpec<Noun extends string, Item extends TSchema, CreateBody extends TSchema, UpdateBody extends TSchema> {
  kind: ResourceKind;
  /** Singular, capitalised, for summaries and operation ids: "Secret". */
  noun: Noun;
  /** URL segment and audit prefix: "secrets". */
  plural: string;
  item: Item;
  createBody: CreateBody;
  updateBody: UpdateBody;
  /** Extra words for the update summary (PATCH semantics). */
  updateNote?: string;
  idParam?: string;
}

/**
 * The five routes every namespaced resource has: create, list, get, update, delete. Operation
 * ids and schemas keep their exact types, so each handler is typed from its route.
 */
export function namespacedCrudRoutes<const Noun extends string, Item extends TSchema, CreateBody extends TSchema, UpdateBody extends TSchema>(
  spec: CrudSpec<Noun, Item, CreateBody, UpdateBody>,
) {
  const { kind, noun, plural } = spec;
  const collection = `/namespaces/:ns/${plural}`;
  const item = `${collection}/:id`;
  const exact = (action: 'read' | 'update' | 'delete') => ({ actions: [action], resourceKind: kind, target: { scope: 'child', idParam: 'id' }, mode: 'exact' }) as const;
  return [
    {
      operationId: `create${noun}`,
      method: 'POST',
      path: collection,
      summary: `Create a ${noun}.`,
      tag: plural,
      auth: 'api_key',
      successStatus: 201,
      errors: CREATE_ERRORS,
      audit: `${plural}.create`,
      dryRun: true,
      permission: { actions: ['create'], resourceKind: kind, target: { scope: 'child_collection' }, mode: 'exact' },
      schemas: { params: NsParams, querystring: DryRunQuerySchema, body: spec.createBody, data: spec.item },
    },
    {
      operationId: `list${noun}s`,
      method: 'GET',
      path: collection,
      summary: `List the ${noun}s the caller may read.`,
      tag: plural,
      auth: 'api_key',
      successStatus: 200,
      errors: READ_ERRORS,
      permission: { actions: ['read'], resourceKind: kind, target: { scope: 'child_collection' }, mode: 'filter' },
      schemas: { params: NsParams, querystring: ListQuerySchema, data: ListOf(spec.item) },
    },
    {
      operationId: `get${noun}`,
      method: 'GET',
      path: item,
      summary: `Get a ${noun}.`,
      tag: plural,
      auth: 'api_key',
      successStatus: 200,
      errors: READ_ERRORS,
      permission: exact('read'),
      schemas: { params: NsChildParams, data: spec.item },
    },
    {
      operationId: `update${noun}`,
      method: 'PATCH',
      path: item,
      summary: `Update a ${noun}.${spec.updateNote ? ` ${spec.updateNote}` : ''}`,
      tag: plural,
      auth: 'api_key',
      successStatus: 200,
      errors: MUTATION_ERRORS,
      audit: `${plural}.update`,
      permission: exact('update'),
      dryRun: true,
      schemas: { params: NsChildParams, querystring: DryRunQuerySchema, body: spec.updateBody, data: spec.item },
    },
    {
      operationId: `delete${noun}`,
      method: 'DELETE',
      path: item,
      summary: `Delete a ${noun} (409 while something refers to it).`,
      tag: plural,
      auth: 'api_key',
      successStatus: 204,
      errors: MUTATION_ERRORS,
      audit: `${plural}.delete`,
      permission: exact('delete'),
      schemas: { params: NsChildParams },
    },
  ] as const satisfies readonly RouteContract[];
}
