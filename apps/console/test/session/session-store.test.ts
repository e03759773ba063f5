import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient, type ApiClient } from '@occ/contracts/client';
import { createConsoleApi } from '../../src/api/console-api.ts';
import { SessionStore, type SessionState, type TabMemory } from '../../src/session/session-store.ts';

const SESSION = { principalId: 'prn_00000000-0000-4000-8000-000000000001', principalName: 'alice@example.com', expiresAt: '2030-01-01T00:00:00.000Z', csrfToken: 'csrf' };
const ENDED = 'No sign-in rule admits you any more (your groups changed): your session has ended.';

type Answer = { status: number; body?: unknown };
const errorBody = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });

/** The real typed client over a fetch whose answers the test scripts per "METHOD path"; every request is recorded. */
function scriptedServer(answers: Record<string, Answer>): { api: ApiClient; requests: string[] } {
  const requests: string[] = [];
  const api = createApiClient({
    server: '',
    fetch: async (url, init) => {
      const key = `${init.method} ${url}`;
      requests.push(key);
      const answer = answers[key];
      if (!answer) throw new Error(`unexpected request ${key}`);
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    },
  });
  return { api, requests };
}

function memory(initial: 'signed-in' | 'signed-out' | null = null): TabMemory & { value: 'signed-in' | 'signed-out' | null } {
  const held = {
    value: initial,
    get: () => held.value,
    set: (value: 'signed-in' | 'signed-out' | null) => void (held.value = value),
  };
  return held;
}

function store(tab = memory()) {
  const left: string[] = [];
  const states: SessionState[] = [];
  const sessions = new SessionStore({ leave: (url) => left.push(url), memory: tab });
  sessions.subscribe((state) => states.push(state));
  return { sessions, left, states, tab };
}

async function signedIn(tab = memory()) {
  const world = store(tab);
  await world.sessions.resume(scriptedServer({ 'GET /sessions/current': { status: 200, body: { data: SESSION } } }).api);
  expect(world.sessions.state).toEqual({ status: 'signed-in', session: SESSION });
  return world;
}

describe('the console session: sign-out', () => {
  it('an API-key session: DELETE /sessions/current answers 200 with no provider sign-out; the page is signed out and stays', async () => {
    const { sessions, left, tab } = await signedIn();
    const { api, requests } = scriptedServer({ 'DELETE /sessions/current': { status: 200, body: { data: { providerSignOutUrl: null } } } });
    await sessions.signOut(api);
    expect(requests).toEqual(['DELETE /sessions/current']);
    expect(sessions.state).toEqual({ status: 'signed-out', reason: 'signed-out' });
    expect(left).toEqual([]);
    expect(tab.value).toBeNull();
  });

  it('a single sign-on session: every private view is dropped first, then the browser goes to the provider sign-out page', async () => {
    const { sessions, left, states, tab } = await signedIn();
    const endSession = 'http://127.0.0.1:4000/session/end?id_token_hint=x&post_logout_redirect_uri=http%3A%2F%2Focc.test%2F';
    const { api } = scriptedServer({ 'DELETE /sessions/current': { status: 200, body: { data: { providerSignOutUrl: endSession } } } });
    const leave = vi.fn();
    sessions.subscribe(() => leave(left.length));
    await sessions.signOut(api);
    expect(sessions.state).toEqual({ status: 'signed-out', reason: 'provider-sign-out' });
    expect(left).toEqual([endSession]);
    // Signed out before leaving (the listener ran while nothing had been followed yet).
    expect(leave).toHaveBeenCalledWith(0);
    expect(states.at(-1)).toEqual({ status: 'signed-out', reason: 'provider-sign-out' });
    // Back from the provider, the tab says "signed out" once.
    expect(tab.value).toBe('signed-out');
  });

  it('follows only an http(s) sign-out URL', async () => {
    for (const providerSignOutUrl of ['javascript:alert(1)', 'data:text/html,x', 'not a url']) {
      const { sessions, left } = await signedIn();
      await sessions.signOut(scriptedServer({ 'DELETE /sessions/current': { status: 200, body: { data: { providerSignOutUrl } } } }).api);
      expect(left).toEqual([]);
      expect(sessions.state).toEqual({ status: 'signed-out', reason: 'signed-out' });
    }
  });

  it('a session already gone (401) is signed out; any other failure leaves the page signed in and is thrown', async () => {
    const gone = await signedIn();
    await gone.sessions.signOut(scriptedServer({ 'DELETE /sessions/current': errorBody(401, 'UNAUTHENTICATED', 'A valid session is required (sign in again).') }).api);
    expect(gone.sessions.state).toEqual({ status: 'signed-out', reason: 'signed-out' });
    expect(gone.left).toEqual([]);

    const failing = await signedIn();
    await expect(failing.sessions.signOut(scriptedServer({ 'DELETE /sessions/current': errorBody(503, 'DEPENDENCY_UNAVAILABLE', 'down') }).api)).rejects.toMatchObject({
      status: 503,
    });
    expect(failing.sessions.state.status).toBe('signed-in');
    expect(failing.left).toEqual([]);
  });
});

describe('the console session: a session that ends under the page', () => {
  it('a 401 while signed in: signed out as "expired", with the controller’s reason', async () => {
    const { sessions, tab } = await signedIn();
    sessions.lost(ENDED);
    expect(sessions.state).toEqual({ status: 'signed-out', reason: 'expired', detail: ENDED });
    expect(sessions.csrfToken).toBeUndefined();
    // Said once: a reload afterwards is a plain sign-in page.
    expect(tab.value).toBeNull();
    sessions.lost('again');
    expect(sessions.state).toEqual({ status: 'signed-out', reason: 'expired', detail: ENDED });
  });

  it('a reload after the session ended (single sign-on refresh refused) says it ended, and why', async () => {
    const { sessions, tab } = store(memory('signed-in'));
    await sessions.resume(scriptedServer({ 'GET /sessions/current': errorBody(401, 'UNAUTHENTICATED', ENDED) }).api);
    expect(sessions.state).toEqual({ status: 'signed-out', reason: 'expired', detail: ENDED });
    expect(tab.value).toBeNull();
  });

  it('a first visit (the tab never signed in) is a plain sign-in page; back from the provider sign-out, it says signed out', async () => {
    const fresh = store(memory(null));
    await fresh.sessions.resume(scriptedServer({ 'GET /sessions/current': errorBody(401, 'UNAUTHENTICATED', 'A valid session is required (sign in again).') }).api);
    expect(fresh.sessions.state).toEqual({ status: 'signed-out', reason: 'none' });

    const back = store(memory('signed-out'));
    await back.sessions.resume(scriptedServer({ 'GET /sessions/current': errorBody(401, 'UNAUTHENTICATED', 'A valid session is required (sign in again).') }).api);
    expect(back.sessions.state).toEqual({ status: 'signed-out', reason: 'signed-out' });
    expect(back.tab.value).toBeNull();
  });

  it('back from single sign-on, the cookie’s session is read and remembered as signed in', async () => {
    const { tab } = await signedIn(memory('signed-out'));
    expect(tab.value).toBe('signed-in');
  });

  it('resume fails loudly on anything but 401 (the provider not answering a due refresh is not a sign-out)', async () => {
    const { sessions } = store(memory('signed-in'));
    const unavailable = errorBody(503, 'IDENTITY_PROVIDER_UNAVAILABLE', 'The identity provider did not answer while your session was due to be refreshed; try again shortly.');
    await expect(sessions.resume(scriptedServer({ 'GET /sessions/current': unavailable }).api)).rejects.toMatchObject({ code: 'IDENTITY_PROVIDER_UNAVAILABLE' });
    expect(sessions.state).toEqual({ status: 'checking' });
  });
});

describe('the console API client and 401', () => {
  afterEach(() => vi.unstubAllGlobals());

  const answering = (answer: Answer) =>
    vi.fn(async (_url: string, _init: RequestInit) => new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } }));

  it('a 401 from an authenticated route reports the lost session with the controller’s message, and the caller still gets the error', async () => {
    vi.stubGlobal('fetch', answering(errorBody(401, 'UNAUTHENTICATED', ENDED)));
    const lost = vi.fn();
    const api = createConsoleApi({ csrfToken: () => undefined, onSessionLost: lost });
    await expect(api.call('listNamespaces', {})).rejects.toMatchObject({ status: 401, message: ENDED });
    expect(lost).toHaveBeenCalledWith(ENDED);
  });

  it('a 401 without an error envelope still reports the lost session (without words)', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('nope', { status: 401 })),
    );
    const lost = vi.fn();
    await expect(createConsoleApi({ csrfToken: () => undefined, onSessionLost: lost }).call('listNamespaces', {})).rejects.toMatchObject({ status: 401 });
    expect(lost).toHaveBeenCalledWith(undefined);
  });

  it('a wrong API key at sign-in (POST /sessions 401) is a form error, not a lost session', async () => {
    vi.stubGlobal('fetch', answering(errorBody(401, 'UNAUTHENTICATED', 'The API key is not valid.')));
    const lost = vi.fn();
    await expect(createConsoleApi({ csrfToken: () => undefined, onSessionLost: lost }).call('createSession', { body: { apiKey: 'occ_x' } })).rejects.toMatchObject({ status: 401 });
    expect(lost).not.toHaveBeenCalled();
  });

  it('asks GET /sign-in with the cookie and no CSRF token (a public route)', async () => {
    const fetch = answering({ status: 200, body: { data: { apiKey: true, oidc: { issuer: 'https://idp.example.com', browserPath: '/sign-in/oidc' } } } });
    vi.stubGlobal('fetch', fetch);
    const { data } = await createConsoleApi({ csrfToken: () => 'csrf', onSessionLost: vi.fn() }).call('getSignInOptions', {});
    expect(data.oidc).toEqual({ issuer: 'https://idp.example.com', browserPath: '/sign-in/oidc' });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/sign-in');
    expect(init).toMatchObject({ method: 'GET', credentials: 'same-origin' });
    expect(init.headers).not.toHaveProperty('x-csrf-token');
  });
});
