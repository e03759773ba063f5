import { createHash } from 'node:crypto';
import { request as httpsRequest, createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { throwawayTls } from '../../../../test-support/throwaway-tls.ts';
import { grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/**
 * Console sessions (docs/api.md, "Console sessions"): an API key exchanged for an HttpOnly
 * cookie and a CSRF token; IAM is the key's principal's; mutations need the CSRF token; the
 * session ends with sign-out, with its key, and after 8 hours.
 */
interface Session {
  token: string;
  csrf: string;
  setCookie: string;
  res: TestResponse;
}

const setCookieOf = (res: TestResponse) => String([res.headers['set-cookie']].flat()[0] ?? '');

describe('console sessions', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  const signIn = async (apiKey: string): Promise<Session> => {
    const res = await t.request({ method: 'POST', url: '/sessions', key: null, body: { apiKey } });
    expect(res.status, res.raw).toBe(201);
    const setCookie = setCookieOf(res);
    const token = /^occ_session=([A-Za-z0-9_-]{43});/.exec(setCookie)?.[1];
    expect(token, setCookie).toBeDefined();
    return { token: token!, csrf: res.body.data.csrfToken, setCookie, res };
  };
  /** A request carrying only the cookie (no Authorization), and the CSRF token when given. */
  const withCookie = (s: Pick<Session, 'token'>, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, options: { csrf?: string; body?: unknown } = {}) =>
    t.request({
      method,
      url,
      key: null,
      headers: { cookie: `theme=dark; occ_session=${s.token}`, ...(options.csrf !== undefined ? { 'x-csrf-token': options.csrf } : {}) },
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
  const auditOf = async (action: string) =>
    (
      await t.database.query<{ actor_id: string; resource_id: string; t: string }>(
        'SELECT actor_id, resource_id, row_to_json(a)::text AS t FROM audit_events a WHERE action = $1 ORDER BY seq',
        [action],
      )
    ).rows;

  it('exchanges a key for an HttpOnly, SameSite=Strict cookie (no Secure over http) and a CSRF token', async () => {
    const p = await newPrincipal(t, 'human');
    const s = await signIn(p.key);
    expect(s.setCookie).toBe(`occ_session=${s.token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=28800`);
    expect(s.res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(s.res.body.data).sort()).toEqual(['csrfToken', 'expiresAt', 'principalId', 'principalName']);
    expect(s.res.body.data.principalId).toBe(p.id);
    // The name the console shows for who is signed in (never the id); the same after a reload.
    expect(s.res.body.data.principalName).toBe(p.name);
    expect((await withCookie(s, 'GET', '/sessions/current')).body.data).toMatchObject({ principalId: p.id, principalName: p.name });
    const hours = (Date.parse(s.res.body.data.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(7.9);
    expect(hours).toBeLessThanOrEqual(8);
    // The token travels only in Set-Cookie: not in the body.
    expect(s.res.raw).not.toContain(s.token);
    const created = (await auditOf('sessions.create')).at(-1)!;
    expect(created.actor_id).toBe(p.id);
    expect(created.t).not.toContain(s.token);
    expect(created.t).not.toContain(p.key);
  });

  it('marks the cookie Secure when the request came over TLS', async () => {
    const p = await newPrincipal(t);
    const tls = throwawayTls();
    await t.app.ready();
    // A real TLS listener in front of the same Fastify router: request.protocol is then 'https'
    // (the controller trusts no X-Forwarded-Proto).
    const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => t.app.routing(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const payload = JSON.stringify({ apiKey: p.key });
      const answer = await new Promise<{ status: number; setCookie: string }>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port, method: 'POST', path: '/sessions', ca: tls.ca, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, setCookie: String(res.headers['set-cookie']?.[0] ?? '') }));
        });
        req.on('error', reject);
        req.end(payload);
      });
      expect(answer.status).toBe(201);
      expect(answer.setCookie).toMatch(/^occ_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=28800; Secure$/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // Over plain http a forwarded-proto header changes nothing.
    const res = await t.request({ method: 'POST', url: '/sessions', key: null, body: { apiKey: p.key }, headers: { 'x-forwarded-proto': 'https' } });
    expect(setCookieOf(res)).not.toContain('Secure');
  });

  it('GET /sessions/current reads the session again (same CSRF token); 401 without a valid cookie', async () => {
    const p = await newPrincipal(t);
    const s = await signIn(p.key);
    const current = await withCookie(s, 'GET', '/sessions/current');
    expect(current.status, current.raw).toBe(200);
    expect(current.body.data).toEqual(s.res.body.data);
    expect(current.raw).not.toContain(s.token);
    expect((await t.request({ method: 'GET', url: '/sessions/current', key: null })).status).toBe(401);
    expect((await t.request({ method: 'GET', url: '/sessions/current', key: p.key })).status).toBe(401);
    expect((await withCookie({ token: 'A'.repeat(43) }, 'GET', '/sessions/current')).status).toBe(401);
    expect((await withCookie({ token: 'not a token' }, 'GET', '/sessions/current')).status).toBe(401);
  });

  it("IAM is the session principal's: a cookie is allowed and refused exactly where its key is", async () => {
    const p = await newPrincipal(t);
    const ns = (await t.request({ method: 'POST', url: '/namespaces', body: { name: uniqueName('ns') } })).body.data.id;
    const other = (await t.request({ method: 'POST', url: '/namespaces', body: { name: uniqueName('ns') } })).body.data.id;
    await grant(
      t,
      p.id,
      [
        { action: 'read', resourceKind: 'namespace' },
        { action: 'read', resourceKind: 'configuration' },
      ],
      { namespaceId: ns },
    );
    const s = await signIn(p.key);
    const cases: ['GET' | 'POST', string, unknown?][] = [
      ['GET', `/namespaces/${ns}/configurations`],
      ['GET', `/namespaces/${other}/configurations`],
      ['GET', '/principals'],
      ['POST', `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} }],
    ];
    const statuses = [];
    for (const [method, url, body] of cases) {
      const byKey = await t.request({ method, url, key: p.key, ...(body ? { body } : {}) });
      const byCookie = await withCookie(s, method, url, { csrf: s.csrf, ...(body ? { body } : {}) });
      expect(byCookie.status, `${method} ${url}`).toBe(byKey.status);
      statuses.push(byCookie.status);
    }
    expect(statuses[0]).toBe(200);
    expect(statuses[3]).toBe(403);
    expect(statuses.slice(1, 3).every((s) => s === 403 || s === 404)).toBe(true);
  });

  it('a cookie mutation without (or with a wrong) CSRF token is refused with 403 and writes nothing; with it, it succeeds', async () => {
    const s = await signIn(t.adminKey);
    const names = [uniqueName('csrf'), uniqueName('csrf'), uniqueName('csrf')];
    const missing = await withCookie(s, 'POST', '/namespaces', { body: { name: names[0] } });
    expect(missing.status).toBe(403);
    expect(missing.body.error.code).toBe('FORBIDDEN');
    const wrong = await withCookie(s, 'POST', '/namespaces', { body: { name: names[1] }, csrf: 'x'.repeat(s.csrf.length) });
    expect(wrong.status).toBe(403);
    // Refused before validation: even an invalid body answers 403, not 400.
    expect((await withCookie(s, 'POST', '/namespaces', { body: { bogus: true } })).status).toBe(403);
    const ok = await withCookie(s, 'POST', '/namespaces', { body: { name: names[2] }, csrf: s.csrf });
    expect(ok.status, ok.raw).toBe(201);
    const { rows } = await t.database.query<{ name: string }>('SELECT name FROM namespaces WHERE name = ANY($1)', [names]);
    expect(rows.map((r) => r.name)).toEqual([names[2]]);
    for (const r of [missing, wrong]) expect(r.raw).not.toContain(s.csrf);
  });

  it('a request with an Authorization header ignores cookies (no CSRF for API clients; a bad key is not rescued by a cookie)', async () => {
    const s = await signIn(t.adminKey);
    const res = await t.request({ method: 'POST', url: '/namespaces', body: { name: uniqueName('ns') }, headers: { cookie: `occ_session=${s.token}` } });
    expect(res.status, res.raw).toBe(201);
    const bad = await t.request({ method: 'GET', url: '/namespaces', key: `occ_${'x'.repeat(43)}`, headers: { cookie: `occ_session=${s.token}` } });
    expect(bad.status).toBe(401);
  });

  it('sign-out needs the CSRF token, revokes the session, clears the cookie and is audited', async () => {
    const p = await newPrincipal(t);
    const s = await signIn(p.key);
    expect((await withCookie(s, 'DELETE', '/sessions/current')).status).toBe(403);
    expect((await withCookie(s, 'GET', '/sessions/current')).status).toBe(200);
    const out = await withCookie(s, 'DELETE', '/sessions/current', { csrf: s.csrf });
    expect(out.status, out.raw).toBe(200);
    // A session exchanged for an API key has no provider session to end.
    expect(out.body.data).toEqual({ providerSignOutUrl: null });
    expect(setCookieOf(out)).toBe('occ_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
    expect((await withCookie(s, 'GET', '/sessions/current')).status).toBe(401);
    expect((await withCookie(s, 'GET', '/installation')).status).toBe(401);
    expect((await withCookie(s, 'DELETE', '/sessions/current', { csrf: s.csrf })).status).toBe(401);
    const deleted = (await auditOf('sessions.delete')).at(-1)!;
    expect(deleted.actor_id).toBe(p.id);
    expect(deleted.resource_id).toBe((await auditOf('sessions.create')).at(-1)!.resource_id);
    // The session routes take only the cookie: a key there is no session.
    expect((await t.request({ method: 'GET', url: '/sessions/current', key: null, headers: { authorization: `Bearer ${p.key}` } })).status).toBe(401);
  });

  it('revoking the API key ends its sessions at once; deleting the principal removes them', async () => {
    const p = await newPrincipal(t);
    await grant(t, p.id, [{ action: 'read', resourceKind: 'installation' }], {});
    const s = await signIn(p.key);
    expect((await withCookie(s, 'GET', '/installation')).status).toBe(200);
    const keys = await t.request({ method: 'GET', url: `/principals/${p.id}/api-keys` });
    const revoked = await t.request({ method: 'DELETE', url: `/principals/${p.id}/api-keys/${keys.body.data.items[0].id}` });
    expect(revoked.status).toBe(204);
    expect((await withCookie(s, 'GET', '/installation')).status).toBe(401);
    expect((await withCookie(s, 'GET', '/sessions/current')).status).toBe(401);

    const q = await newPrincipal(t);
    await signIn(q.key);
    expect((await t.request({ method: 'DELETE', url: `/principals/${q.id}` })).status).toBe(204);
    const { rows } = await t.database.query('SELECT 1 FROM console_sessions WHERE principal_id = $1', [q.id]);
    expect(rows).toEqual([]);
  });

  it('an expired session answers 401', async () => {
    const p = await newPrincipal(t);
    const s = await signIn(p.key);
    await t.database.query("UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [createHash('sha256').update(s.token).digest()]);
    expect((await withCookie(s, 'GET', '/sessions/current')).status).toBe(401);
  });

  it('refuses a bad body with 400 and JSON pointers, and a key that is not valid with 401', async () => {
    const post = (body: unknown) => t.request({ method: 'POST', url: '/sessions', key: null, body });
    const extra = await post({ apiKey: t.adminKey, remember: true });
    expect(extra.status).toBe(400);
    expect(extra.body.error.details).toEqual([expect.objectContaining({ path: '/remember' })]);
    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([expect.objectContaining({ path: '/apiKey' })]);
    const wrongType = await post({ apiKey: 42 });
    expect(wrongType.body.error.details).toEqual([expect.objectContaining({ path: '/apiKey' })]);
    const unknown = `occ_${'y'.repeat(43)}`;
    for (const apiKey of ['not-a-key', unknown]) {
      const res = await post({ apiKey });
      expect(res.status).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.raw).not.toContain(apiKey);
    }
    const p = await newPrincipal(t);
    expect(extra.raw).not.toContain(t.adminKey);
    // An expired key is refused like a revoked one.
    await t.database.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE principal_id = $1", [p.id]);
    expect((await post({ apiKey: p.key })).status).toBe(401);
  });

  it('stores only hashes: the token and CSRF token appear in no row, the token hash is its SHA-256', async () => {
    const p = await newPrincipal(t);
    const s = await signIn(p.key);
    const { rows } = await t.database.query<{ token_hash: Uint8Array; csrf_hash: Uint8Array; principal_id: string }>(
      'SELECT token_hash, csrf_hash, principal_id FROM console_sessions WHERE principal_id = $1',
      [p.id],
    );
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.token_hash).equals(createHash('sha256').update(s.token).digest())).toBe(true);
    expect(Buffer.from(rows[0]!.csrf_hash).equals(createHash('sha256').update(s.csrf).digest())).toBe(true);
    const all = (await t.database.query<{ t: string }>('SELECT row_to_json(x)::text AS t FROM console_sessions x')).rows.map((r) => r.t).join('\n');
    for (const secret of [s.token, s.csrf]) {
      for (const encoded of [secret, Buffer.from(secret, 'base64url').toString('hex'), Buffer.from(secret, 'base64url').toString('base64')]) expect(all).not.toContain(encoded);
    }
    // Nor in any log line.
    expect(t.logs.filter((line) => line.includes(s.token) || line.includes(p.key))).toEqual([]);
  });
});
