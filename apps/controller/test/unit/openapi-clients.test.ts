import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '@occ/contracts';
import type { ControllerDeps } from '../../src/core/deps.ts';
import { createFastifyApp } from '../../src/http/app.ts';

// The published contract serves clients we did not write: /openapi.json passes a standard
// linter's recommended rules (Redocly) and an off-the-shelf generator (openapi-typescript) turns
// it into types a client compiles against. The document is built in-process: no database, no
// socket (building it touches no dependency, so the app gets none).

type Document = { paths: Record<string, Record<string, unknown>> };

let doc: Document;
let workDir: string;

beforeAll(async () => {
  const app = await createFastifyApp({ deps: {} as ControllerDeps });
  await app.ready();
  doc = structuredClone(app.swagger()) as unknown as Document;
  await app.close();
  workDir = await mkdtemp(join(tmpdir(), 'occ-openapi-client-'));
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const where = (p: NormalizedProblem) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`;

async function lint(document: unknown): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
}

/**
 * Warnings the document keeps on purpose:
 * - `info-license`: the project has not chosen a licence; the document does not invent one.
 * - `operation-4xx-response` on public routes: probes and this document answer no 4xx, and a
 *   client should not be told they might.
 */
function acceptedWarning(p: NormalizedProblem): boolean {
  const pointer = p.location[0]?.pointer ?? '';
  if (p.ruleId === 'info-license') return pointer === '#/info';
  if (p.ruleId !== 'operation-4xx-response') return false;
  return routeTable.some((r) => r.auth === 'public' && pointer === `#/paths/${r.path.replaceAll('/', '~1')}/${r.method.toLowerCase()}/responses`);
}

/** A small client written the way a third party would: only against the generated types. */
function clientSource(): string {
  const ids = routeTable.map((r) => JSON.stringify(r.operationId)).join(', ');
  return `import type { operations } from './api';

// Every operation of the route table is in the generated types.
export const covered = [${ids}] as const satisfies readonly (keyof operations)[];

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Body<Op> = Op extends { requestBody: infer R } ? Json<R> : never;
type Answer<Op, S extends number> = Op extends { responses: { [K in S]: infer R } } ? Json<R> : never;
type Failure = Answer<operations['createNamespace'], 400>;

/** The transport is the caller's (\`globalThis.fetch\` fits): the client needs no DOM or Node types. */
export type Fetch = (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<{ ok: boolean; json(): Promise<unknown> }>;

export class OccClient {
  constructor(private readonly fetch: Fetch, private readonly baseUrl: string, private readonly apiKey: string) {}

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.fetch(this.baseUrl + path, {
      method,
      headers: { authorization: \`Bearer \${this.apiKey}\`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      const failure = (await response.json()) as Failure;
      throw new Error(\`\${failure.error.code} (\${failure.meta.requestId}): \${failure.error.message}\`);
    }
    return (await response.json()) as T;
  }

  createNamespace(body: Body<operations['createNamespace']>) {
    return this.send<Answer<operations['createNamespace'], 201>>('POST', '/namespaces', body);
  }

  listNamespaces(query: NonNullable<operations['listNamespaces']['parameters']['query']> = {}) {
    const search: string[] = [];
    if (query.limit !== undefined) search.push(\`limit=\${query.limit}\`);
    if (query.cursor !== undefined) search.push(\`cursor=\${encodeURIComponent(query.cursor)}\`);
    return this.send<Answer<operations['listNamespaces'], 200>>('GET', \`/namespaces?\${search.join('&')}\`);
  }

  getAgent(path: operations['getAgent']['parameters']['path']) {
    return this.send<Answer<operations['getAgent'], 200>>('GET', \`/namespaces/\${path.ns}/agents/\${path.id}\`);
  }

  healthz() {
    return this.send<Answer<operations['healthz'], 200>>('GET', '/healthz');
  }
}

export async function tour(client: OccClient): Promise<string[]> {
  const created = await client.createNamespace({ name: 'team-a' });
  const names: string[] = [created.data.name];
  let cursor: string | null = null;
  do {
    const page = await client.listNamespaces(cursor === null ? { limit: 50 } : { limit: 50, cursor });
    for (const namespace of page.data.items) names.push(namespace.id);
    cursor = page.data.nextCursor;
  } while (cursor !== null);
  const agent = await client.getAgent({ ns: created.data.id, id: 'agt_1' });
  names.push(agent.data.id, agent.meta.requestId);
  const health: 'ok' = (await client.healthz()).data.status;
  names.push(health);
  // The types are precise, not \`any\`: closed bodies and typed fields.
  // @ts-expect-error a body field the API does not take
  await client.createNamespace({ name: 'team-b', owner: 'me' });
  // @ts-expect-error a Namespace's name is a string
  await client.createNamespace({ name: 42 });
  return names;
}
`;
}

// A third party's strict settings; ES only, so the check is about the generated types alone.
const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts'],
  types: [],
  strict: true,
  noUncheckedIndexedAccess: true,
  noEmit: true,
};
/** The standard library's files are parsed once and reused by the next compile. */
let previousProgram: ts.Program | undefined;

/** Generates types from `document` into a fresh directory and type-checks the client against them. */
async function compileClient(document: unknown, name: string): Promise<string[]> {
  const dir = join(workDir, name);
  const api = astToString(await openapiTS(document as Parameters<typeof openapiTS>[0], { silent: true }));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'api.ts'), api);
  await writeFile(join(dir, 'client.ts'), clientSource());
  const program = ts.createProgram([join(dir, 'client.ts')], COMPILER_OPTIONS, undefined, previousProgram);
  previousProgram = program;
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const at = d.file && d.start !== undefined ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : '';
    return at + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

describe('the published contract serves clients we did not write', () => {
  it('/openapi.json passes Redocly’s recommended rules with no error', async () => {
    const problems = await lint(doc);
    expect(problems.filter((p) => p.severity === 'error').map(where)).toEqual([]);
    expect(problems.filter((p) => p.severity !== 'error' && !acceptedWarning(p)).map(where)).toEqual([]);
  });

  it('declares where the API is and, on every operation, which credential it takes (none on public routes)', () => {
    expect((doc as unknown as { servers?: unknown[] }).servers).toEqual([expect.objectContaining({ url: '/' })]);
    for (const r of routeTable.filter((x) => x.auth === 'public')) {
      const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
      expect((doc.paths[path]?.[r.method.toLowerCase()] as { security?: unknown } | undefined)?.security, r.operationId).toEqual([]);
    }
  });

  it('openapi-typescript turns it into types a strict client compiles against', async () => {
    expect(await compileClient(doc, 'published')).toEqual([]);
  }, 60_000);

  it('the check bites: a document that lost an operation the client uses does not compile', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/namespaces']!.post;
    const diagnostics = await compileClient(broken, 'broken');
    expect(diagnostics.join('\n')).toMatch(/createNamespace/);
  }, 60_000);
});
