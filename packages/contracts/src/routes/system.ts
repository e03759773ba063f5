import { Type } from '@sinclair/typebox';
import { Closed } from '../common.ts';
import { InstallationSchema } from '../resources/installation.ts';
import { READ_ERRORS, type RouteContract } from './route-contract.ts';

export const systemRoutes = [
  {
    operationId: 'healthz',
    method: 'GET',
    path: '/healthz',
    summary: 'The process is up.',
    tag: 'system',
    auth: 'public',
    successStatus: 200,
    errors: [500],
    schemas: { data: Closed({ status: Type.Literal('ok') }) },
  },
  {
    operationId: 'readyz',
    method: 'GET',
    path: '/readyz',
    summary: 'The database is reachable and every migration is applied.',
    tag: 'system',
    auth: 'public',
    successStatus: 200,
    errors: [503],
    schemas: { data: Closed({ status: Type.Literal('ready'), schemaVersion: Type.Integer() }) },
  },
  {
    operationId: 'getOpenApi',
    method: 'GET',
    path: '/openapi.json',
    summary: 'This API as an OpenAPI 3 document, generated from the route table.',
    tag: 'system',
    auth: 'public',
    successStatus: 200,
    errors: [500],
    raw: true,
    schemas: {},
  },
  {
    operationId: 'getInstallation',
    method: 'GET',
    path: '/installation',
    summary: 'The Installation and its capabilities, including plugin policy capabilities per harness.',
    tag: 'installation',
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: { actions: ['read'], resourceKind: 'installation', target: { scope: 'installation' }, mode: 'exact' },
    schemas: { data: InstallationSchema },
  },
] as const satisfies readonly RouteContract[];
