import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Static } from '@sinclair/typebox';
import {
  type ListQuerySchema,
  routeTable,
  type Agent,
  type AgentRevisionView,
  type CreateAgentBody,
  type DeployDryRun,
  type DeployRequest,
  type DeployUnchanged,
  type RouteOf,
} from '@occ/contracts';
import type { HandlerContext, HandlerMap, ResponseData } from '../../src/http/handlers/handler.ts';
import { handlers } from '../../src/http/handlers/index.ts';
import { isOperationId, isPathParams, routeOf } from '../../src/http/route-binding.ts';
import { fastifyRouteSchema } from '../../src/http/route-schema.ts';
import { httpPartOf } from '../../src/http/validation.ts';

type Ctx<Id extends keyof HandlerMap> = HandlerContext<RouteOf<Id>>;

// The type assertions below are checked by `tsc` (npm run typecheck), not at run time.
describe('handlers typed from the route table', () => {
  it('a handler sees its own route’s params, query and body, and answers its data type', () => {
    expectTypeOf<Ctx<'getAgent'>['params']>().toEqualTypeOf<{ ns: string; id: string }>();
    expectTypeOf<Ctx<'createAgent'>['body']>().toEqualTypeOf<CreateAgentBody>();
    expectTypeOf<Ctx<'listAgents'>['query']>().toEqualTypeOf<Static<typeof ListQuerySchema>>();
    expectTypeOf<Ctx<'getAgentRevision'>['params']>().toEqualTypeOf<{ ns: string; id: string; rev: string }>();
    expectTypeOf<ResponseData<RouteOf<'getAgent'>>>().toEqualTypeOf<Agent>();
    // Deploy answers the revision it admitted (202) or, for a dry run or with nothing changed, what it would admit or keeps (200).
    expectTypeOf<ResponseData<RouteOf<'deployAgent'>>>().toEqualTypeOf<AgentRevisionView | DeployDryRun | DeployUnchanged>();
    expectTypeOf<Ctx<'deployAgent'>['body']>().toEqualTypeOf<DeployRequest>();
    expectTypeOf<ResponseData<RouteOf<'listAgents'>>>().toEqualTypeOf<{ items: Agent[]; nextCursor: string | null }>();
    expectTypeOf<ResponseData<RouteOf<'deleteAgent'>>>().toEqualTypeOf<undefined>();
    // A route that declares no body gives its handler none to read.
    expectTypeOf<Ctx<'getAgent'>['body']>().toBeUnknown();
    expectTypeOf(handlers.getAgent).parameter(0).toEqualTypeOf<Ctx<'getAgent'>>();
    // @ts-expect-error getAgent has no `rev` path parameter.
    const readsRev = (ctx: Ctx<'getAgent'>) => ctx.params.rev;
    expectTypeOf(readsRev).toBeFunction();
    expect(Object.keys(handlers).sort()).toEqual(routeTable.map((r) => r.operationId).sort());
  });

  it('binds only the table’s own routes, by operationId', () => {
    for (const route of routeTable) {
      expect(isOperationId(route.operationId)).toBe(true);
      if (isOperationId(route.operationId)) expect(routeOf(route.operationId)).toBe(route);
    }
    expect(isOperationId('noSuchOperation')).toBe(false);
  });

  it('path parameters are string records; anything else is refused', () => {
    expect(isPathParams({ ns: 'ns_1', id: 'agt_1' })).toBe(true);
    expect(isPathParams({})).toBe(true);
    expect(isPathParams({ ns: 1 })).toBe(false);
    expect(isPathParams(null)).toBe(false);
    expect(isPathParams('ns')).toBe(false);
  });

  it('the Fastify schema carries only the request parts a route declares', () => {
    const get = fastifyRouteSchema(routeOf('getAgent'));
    expect(Object.keys(get)).toEqual(['operationId', 'summary', 'tags', 'security', 'params', 'response']);
    const list = fastifyRouteSchema(routeOf('listNamespaces'));
    expect(Object.keys(list)).toEqual(['operationId', 'summary', 'tags', 'security', 'querystring', 'response']);
    const openapi = fastifyRouteSchema(routeOf('getOpenApi'));
    expect(Object.keys(openapi)).toEqual(['operationId', 'summary', 'tags']);
  });

  it('the validator compiler names the part Fastify asks for; absent means the body', () => {
    expect(httpPartOf('params')).toBe('params');
    expect(httpPartOf('querystring')).toBe('querystring');
    expect(httpPartOf('headers')).toBe('headers');
    expect(httpPartOf(undefined)).toBe('body');
  });
});
