import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/gm), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!);
}

function violations(dir: string, forbidden: (specifier: string, file: string) => boolean): string[] {
  return sources(join(ROOT, dir)).flatMap((file) =>
    imports(file)
      .filter((s) => forbidden(s, file))
      .map((s) => `${relative(ROOT, file)} imports ${s}`),
  );
}

const IO_MODULES = /^(node:)?(fs|fs\/promises|net|http|https|child_process|dgram|tls)$|^(pg|fastify|@fastify\/.*|@electric-sql\/pglite)$/;

describe('module boundaries (docs/architecture.md, "Layers")', () => {
  it('packages/contracts and packages/policy do no I/O', () => {
    expect(violations('packages/contracts/src', (s) => IO_MODULES.test(s))).toEqual([]);
    expect(violations('packages/policy/src', (s) => IO_MODULES.test(s))).toEqual([]);
  });

  it('packages/host-io, the host plumbing the runtime and the controller share, stands alone: Node built-ins only', () => {
    expect(violations('packages/host-io/src', (s) => !s.startsWith('node:'))).toEqual([]);
  });

  it('the controller reaches the runtime only through its entry points (launch, gateway probe), never its internals', () => {
    const ENTRY_POINTS = new Set(['@occ/runtime/launch', '@occ/runtime/gateway-probe']);
    expect(violations('apps/controller/src', (s) => (s.startsWith('@occ/runtime') && !ENTRY_POINTS.has(s)) || s.includes('runtime/src/'))).toEqual([]);
    // What both sides use lives in packages/host-io, not in the runtime.
    expect(violations('apps/runtime/src', (s) => s.startsWith('@occ/controller') || s.includes('controller/src/'))).toEqual([]);
  });

  it('the API client runs in a browser too (the console bundles it): no Node modules', () => {
    expect(violations('packages/contracts/src/client', (s) => s.startsWith('node:'))).toEqual([]);
  });

  it('core imports no Fastify, no pg, no PGlite and no adapter (only its ports)', () => {
    expect(violations('apps/controller/src/core', (s) => IO_MODULES.test(s) || /\/(state|http|drivers|composition|worker)\//.test(`/${s.replace(/^(\.\.\/)+/, '')}`))).toEqual([]);
  });

  it('drivers never import each other (compute drivers share only compute/runtime-contract, the contract with the runtime)', () => {
    const driverOf = (path: string) => /drivers\/([a-z]+\/[a-z0-9-]+)\//.exec(path)?.[1];
    const SHARED = 'compute/runtime-contract';
    expect(
      violations('apps/controller/src/drivers', (s, file) => {
        if (!s.startsWith('.')) return false;
        const target = driverOf(join(file, '..', s));
        return target !== undefined && target !== SHARED && target !== driverOf(file);
      }),
    ).toEqual([]);
    // The shared module imports no driver.
    expect(
      violations(
        `apps/controller/src/drivers/${SHARED}`,
        (s, file) => s.startsWith('.') && driverOf(join(file, '..', s)) !== SHARED && driverOf(join(file, '..', s)) !== undefined,
      ),
    ).toEqual([]);
  });

  it('the CLI talks to the controller over HTTP only: no controller code outside the server commands up and worker', () => {
    const serverCommands = /apps\/cli\/src\/commands\/server\/(up|worker)\.ts$/;
    expect(violations('apps/cli/src', (s, file) => !serverCommands.test(file) && (s.startsWith('@occ/controller') || s.includes('controller/src')))).toEqual([]);
  });

  it('the HTTP layer does not touch the database directly', () => {
    expect(violations('apps/controller/src/http', (s) => /^(pg|@electric-sql\/pglite)$/.test(s) || s.includes('/state/'))).toEqual([]);
  });
});
