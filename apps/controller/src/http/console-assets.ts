import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync, constants as zlib } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The web console's static files (apps/console/dist: index.html and content-hashed assets/),
 * read once at startup and served from memory. They are not API routes: no route-table entry,
 * no OpenAPI operation, no authentication (the console signs in through the API itself).
 */

/** One byte-exact representation of a file, with the strong ETag of exactly those bytes. */
interface Representation {
  body: Buffer;
  etag: string;
}

export interface ConsoleFile {
  contentType: string;
  identity: Representation;
  /** Only for text types, and only when it is smaller than the identity body. */
  gzip: Representation | null;
}

export interface ConsoleAssets {
  /** null: the console is not built (no index.html). */
  index: ConsoleFile | null;
  /** By URL path (`/assets/app-HASH.js`): the only asset names ever served. */
  assets: ReadonlyMap<string, ConsoleFile>;
  /** Files under assets/ that are not served: names a URL would have to percent-encode, dotfiles, links. */
  skipped: string[];
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};
// Already-compressed formats (images, fonts, wasm) gain nothing from gzip.
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.webmanifest', '.txt', '.svg', '.ico']);

/** A path segment that needs no percent-encoding, so the raw request path can be looked up as is. */
const SAFE_SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

function representation(body: Buffer): Representation {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

function consoleFile(path: string): ConsoleFile {
  const extension = extname(path).toLowerCase();
  const identity = representation(readFileSync(path));
  let gzip: Representation | null = null;
  if (COMPRESSIBLE.has(extension)) {
    const compressed = gzipSync(identity.body, { level: zlib.Z_BEST_COMPRESSION });
    if (compressed.length < identity.body.length) gzip = representation(compressed);
  }
  return { contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream', identity, gzip };
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR';

/** Every regular file under `dir` (symbolic links are not followed), by its path relative to it. */
function walk(dir: string, prefix: string, files: Map<string, string>, skipped: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const relative = `${prefix}${entry.name}`;
    if (!SAFE_SEGMENT.test(entry.name) || !(entry.isFile() || entry.isDirectory())) skipped.push(relative);
    else if (entry.isDirectory()) walk(join(dir, entry.name), `${relative}/`, files, skipped);
    else files.set(relative, join(dir, entry.name));
  }
}

/**
 * Reads a console directory into memory. A directory without index.html is a console that was
 * not built (not an error: the API still starts); any other read failure is.
 */
export function loadConsoleAssets(directory: string): ConsoleAssets {
  let index: ConsoleFile | null = null;
  try {
    index = consoleFile(join(directory, 'index.html'));
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const files = new Map<string, string>();
  const skipped: string[] = [];
  try {
    walk(join(directory, 'assets'), '', files, skipped);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const assets = new Map<string, ConsoleFile>();
  for (const [relative, path] of files) assets.set(`/assets/${relative}`, consoleFile(path));
  return { index, assets, skipped: skipped.map((name) => `assets/${name}`) };
}

/**
 * On every console answer. The console's own origin only: no inline script or style, no eval,
 * no third-party script or connection. Images may come from any HTTPS origin (plugin logos are
 * third-party) and, with no-referrer, learn nothing about where they are shown.
 */
const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** index.html is revalidated on every load (it names the current assets); a hashed asset never changes. */
const INDEX_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=31536000, immutable';

const CONSOLE_NOT_BUILT = 'The console is not built: run `npm ci` (or `npm run build:console`).\n';

/** Whether `accept-encoding` takes gzip (q-values honoured: `gzip;q=0` refuses it). */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [coding, ...params] = part
      .toLowerCase()
      .split(';')
      .map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (coding === 'gzip' || coding === 'x-gzip') gzip = weight;
    else if (coding === '*') any = weight;
  }
  return (gzip ?? any ?? 0) > 0;
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` does not matter, `*` matches. */
function notModified(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string): FastifyReply {
  const chosen = file.gzip && acceptsGzip(request.headers['accept-encoding']) ? file.gzip : file.identity;
  reply.headers({ ...SECURITY_HEADERS, 'cache-control': cacheControl, etag: chosen.etag });
  // Only a file with a gzip variant differs by accept-encoding.
  if (file.gzip) reply.header('vary', 'accept-encoding');
  if (notModified(request.headers['if-none-match'], chosen.etag)) return reply.code(304).send();
  if (chosen === file.gzip) reply.header('content-encoding', 'gzip');
  return reply.code(200).header('content-type', file.contentType).send(chosen.body);
}

function sendText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply
    .code(status)
    .headers({ ...SECURITY_HEADERS, 'cache-control': 'no-store', 'content-type': 'text/plain; charset=utf-8' })
    .send(text);
}

/**
 * `GET|HEAD /` and `GET|HEAD /assets/*` (Fastify adds HEAD). An asset is found by the raw request
 * path, so only the loaded names are ever served: `..`, percent-encoded slashes or any other
 * encoding name nothing and answer a plain 404 — no listing, no fallback to index.html.
 */
export function registerConsole(app: FastifyInstance, files: ConsoleAssets): void {
  if (files.skipped.length > 0) app.log.warn({ files: files.skipped }, 'console files not served (unsafe names, dotfiles or links)');
  // `hide`: not an API operation, so not in /openapi.json.
  app.route({
    method: 'GET',
    url: '/',
    schema: { hide: true },
    handler: (request, reply) => (files.index ? sendFile(request, reply, files.index, INDEX_CACHE) : sendText(reply, 503, CONSOLE_NOT_BUILT)),
  });
  app.route({
    method: 'GET',
    url: '/assets/*',
    schema: { hide: true },
    handler: (request, reply) => {
      const file = files.assets.get(request.url.split('?', 1)[0]!);
      return file ? sendFile(request, reply, file, ASSET_CACHE) : sendText(reply, 404, 'Not found.\n');
    },
  });
}
