import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '@occ/contracts';
import type { ControllerDeps } from '../../src/core/deps.ts';
import { createFastifyApp } from '../../src/http/app.ts';

// The controller serves the built console (apps/console/dist) from memory. No database: the
// console routes touch no dependency, and neither do the API routes used here (/healthz,
// /openapi.json), so the app gets none.

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const SECURITY = {
  'content-security-policy': CSP,
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SECRET = 'not-for-the-browser';

const INDEX = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>OCC</title>\n${'<link rel="stylesheet" href="/assets/app-5TKXQ2ZP.css">\n'.repeat(4)}<script type="module" src="/assets/app-Q3M7L2AB.js"></script></head><body><main id="app"></main></body></html>\n`;
const SCRIPT = `export function render(root) {\n${'  root.append(document.createElement("section"));\n'.repeat(40)}}\n`;
const FONT = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 151 + 7) % 256));

let dist: string;
let unbuilt: string;
let app: FastifyInstance;

/** A second app with the probe route only: quick to build, and still an API beside the console. */
const withProbeOnly = (consoleDirectory?: string | null) =>
  createFastifyApp({ deps: {} as ControllerDeps, routes: routeTable.filter((r) => r.operationId === 'healthz'), ...(consoleDirectory === undefined ? {} : { consoleDirectory }) });

async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<LightMyRequestResponse> {
  return app.inject({ method, url, headers });
}

function expectSecurityHeaders(res: LightMyRequestResponse) {
  for (const [name, value] of Object.entries(SECURITY)) expect(res.headers[name], name).toBe(value);
}

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'occ-console-'));
  dist = join(root, 'dist');
  unbuilt = join(root, 'unbuilt');
  await mkdir(join(dist, 'assets', 'chunks'), { recursive: true });
  await mkdir(unbuilt);
  await writeFile(join(dist, 'index.html'), INDEX);
  await writeFile(join(dist, 'assets', 'app-Q3M7L2AB.js'), SCRIPT);
  await writeFile(join(dist, 'assets', 'inter-7HQ2MX4C.woff2'), FONT);
  await writeFile(join(dist, 'assets', 'chunks', 'picker-R2D2C3PO.js'), SCRIPT);
  // Never served: outside assets/, a dotfile, and a file outside the directory altogether.
  await writeFile(join(dist, 'secret.txt'), SECRET);
  await writeFile(join(dist, 'assets', '.env'), SECRET);
  await writeFile(join(root, 'outside.txt'), SECRET);
  app = await createFastifyApp({ deps: {} as ControllerDeps, consoleDirectory: dist });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  if (dist) await rm(join(dist, '..'), { recursive: true, force: true });
});

describe('the console at /', () => {
  it('GET / is index.html, revalidated on every load (no-cache) under a strong ETag', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(INDEX);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBe('accept-encoding');
    expectSecurityHeaders(res);
  });

  it('the Content-Security-Policy is strict: own origin only, no inline or eval, no third-party script or connection', async () => {
    const csp = String((await get('/')).headers['content-security-policy']);
    expect(csp).toBe(CSP);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|nonce-|sha256-|\*/);
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    for (const name of ['script-src', 'style-src', 'connect-src', 'font-src', 'manifest-src']) expect(directives.get(name), name).toEqual(["'self'"]);
    // Plugin logos are third-party HTTPS images (loaded without a referrer).
    expect(directives.get('img-src')).toEqual(["'self'", 'https:', 'data:']);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
  });

  it('If-None-Match with its ETag → 304 with no body, the same validators and headers; another tag → 200', async () => {
    const { etag } = (await get('/')).headers;
    for (const header of [String(etag), `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await get('/', { 'if-none-match': header });
      expect(res.statusCode, header).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe('no-cache');
      expectSecurityHeaders(res);
    }
    const changed = await get('/', { 'if-none-match': '"an-older-index"' });
    expect([changed.statusCode, changed.body]).toEqual([200, INDEX]);
  });

  it('gzip when accept-encoding takes it (q-values honoured), with its own ETag; identity otherwise', async () => {
    const identity = await get('/');
    for (const accept of ['gzip', 'gzip, deflate, br', 'br;q=1, gzip;q=0.5', '*', 'x-gzip']) {
      const res = await get('/', { 'accept-encoding': accept });
      expect(res.headers['content-encoding'], accept).toBe('gzip');
      expect(res.headers.vary).toBe('accept-encoding');
      expect(gunzipSync(res.rawPayload).toString('utf8')).toBe(INDEX);
      expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(INDEX));
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(res.headers.etag).not.toBe(identity.headers.etag);
    }
    for (const accept of ['identity', 'br', 'gzip;q=0', 'gzip;q=0, *', '*;q=0', 'deflate']) {
      const res = await get('/', { 'accept-encoding': accept });
      expect(res.headers['content-encoding'], accept).toBeUndefined();
      expect(res.body).toBe(INDEX);
      expect(res.headers.etag).toBe(identity.headers.etag);
    }
    const gz = await get('/', { 'accept-encoding': 'gzip' });
    expect((await get('/', { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) })).statusCode).toBe(304);
  });

  it('HEAD / answers the headers of GET / without the body', async () => {
    for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
      const full = await get('/', headers);
      const head = await get('/', headers, 'HEAD');
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      for (const name of ['content-type', 'content-length', 'content-encoding', 'etag', 'cache-control', 'vary']) expect(head.headers[name], name).toEqual(full.headers[name]);
      expectSecurityHeaders(head);
    }
  });
});

describe('the console assets at /assets/', () => {
  it('a hashed script: its content type, cached for a year as immutable, gzip when accepted', async () => {
    const res = await get('/assets/app-Q3M7L2AB.js');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(SCRIPT);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(res.headers.vary).toBe('accept-encoding');
    expectSecurityHeaders(res);
    const gz = await get('/assets/app-Q3M7L2AB.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toBe(SCRIPT);
    expect(gz.headers['cache-control']).toBe(IMMUTABLE);
    const nested = await get('/assets/chunks/picker-R2D2C3PO.js');
    expect([nested.statusCode, nested.body]).toEqual([200, SCRIPT]);
  });

  it('a hashed font: font/woff2, never gzipped (already compressed), so no vary', async () => {
    const res = await get('/assets/inter-7HQ2MX4C.woff2', { 'accept-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('font/woff2');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBeUndefined();
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(Buffer.compare(res.rawPayload, FONT)).toBe(0);
    expectSecurityHeaders(res);
  });

  it('If-None-Match on an asset → 304; HEAD on an asset → its headers without the body', async () => {
    const res = await get('/assets/inter-7HQ2MX4C.woff2');
    const again = await get('/assets/inter-7HQ2MX4C.woff2', { 'if-none-match': String(res.headers.etag) });
    expect([again.statusCode, again.body, again.headers['cache-control']]).toEqual([304, '', IMMUTABLE]);
    const head = await get('/assets/app-Q3M7L2AB.js', {}, 'HEAD');
    expect([head.statusCode, head.body, head.headers['content-length'], head.headers['cache-control']]).toEqual([200, '', String(Buffer.byteLength(SCRIPT)), IMMUTABLE]);
  });

  it.each([
    '/assets/nope-AAAAAAAA.js',
    '/assets/',
    '/assets/app-q3m7l2ab.js',
    '/assets/.env',
    '/assets/..%2Fsecret.txt',
    '/assets/%2E%2E%2Fsecret.txt',
    '/assets/..%2F..%2Foutside.txt',
    '/assets/..%5Csecret.txt',
    '/assets/chunks%2Fpicker-R2D2C3PO.js',
    '/assets/app-Q3M7L2AB%2Ejs',
    '/assets//app-Q3M7L2AB.js',
    '/assets/app-Q3M7L2AB.js%00',
    '/assets/chunks/',
    '/assets/chunks',
  ])('%s → plain 404: only loaded names are served, no listing, no fallback to index.html', async (url) => {
    const res = await get(url);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(404);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain('<html');
    expectSecurityHeaders(res);
  });

  // Dot segments (`/assets/../x`, `/assets/%2e%2e/x`) are resolved before routing: they reach `/x`.
  it.each(['/index.html', '/secret.txt', '/assets/../secret.txt', '/assets/%2e%2e/secret.txt', '/..%2Fsecret.txt', '/assets', '/assetsx/app-Q3M7L2AB.js', '/%2e%2e/outside.txt'])(
    '%s is no console path: the API 404, nothing from the directory',
    async (url) => {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain(SECRET);
      expect(JSON.parse(res.body).error.code).toBe('NOT_FOUND');
    },
  );
});

describe('beside the API', () => {
  it('API answers keep cache-control: no-store and carry no console policy', async () => {
    await get('/');
    for (const url of ['/healthz', '/openapi.json', '/no/such/route']) {
      const res = await get(url);
      expect(res.headers['cache-control'], url).toBe('no-store');
      expect(res.headers['content-security-policy'], url).toBeUndefined();
    }
    expect((await get('/healthz')).statusCode).toBe(200);
  });

  it('the console paths are not API operations: /openapi.json does not list them', async () => {
    const doc = JSON.parse((await get('/openapi.json')).body) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((path) => path === '/' || path.startsWith('/assets'))).toEqual([]);
  });

  it('other methods on the console paths are API 404s', async () => {
    for (const [method, url] of [
      ['POST', '/'],
      ['DELETE', '/assets/app-Q3M7L2AB.js'],
      ['PUT', '/assets/new.js'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(JSON.parse(res.body).error.code).toBe('NOT_FOUND');
    }
  });

  it('a console that is not built (no index.html, or no directory): GET / → 503 text/plain saying how to build it; the API still works', async () => {
    for (const directory of [unbuilt, join(unbuilt, 'missing')]) {
      const own = await withProbeOnly(directory);
      try {
        for (const method of ['GET', 'HEAD'] as const) {
          const res = await own.inject({ method, url: '/' });
          expect(res.statusCode).toBe(503);
          expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
          expect(res.headers['cache-control']).toBe('no-store');
          expectSecurityHeaders(res);
          if (method === 'GET') expect(res.body).toBe('The console is not built: run `npm ci` (or `npm run build:console`).\n');
        }
        expect((await own.inject({ method: 'GET', url: '/assets/app-Q3M7L2AB.js' })).statusCode).toBe(404);
        const health = await own.inject({ method: 'GET', url: '/healthz' });
        expect([health.statusCode, health.headers['cache-control']]).toEqual([200, 'no-store']);
      } finally {
        await own.close();
      }
    }
  });

  it('consoleDirectory null (or absent): no console routes at all', async () => {
    for (const directory of [null, undefined]) {
      const own = await withProbeOnly(directory);
      try {
        expect(own.hasRoute({ method: 'GET', url: '/' })).toBe(false);
        expect(own.hasRoute({ method: 'GET', url: '/assets/*' })).toBe(false);
        const res = await own.inject({ method: 'GET', url: '/' });
        expect([res.statusCode, JSON.parse(res.body).error.code]).toEqual([404, 'NOT_FOUND']);
      } finally {
        await own.close();
      }
    }
  });
});
