import type { ConsoleSessionInfo } from '@occ/contracts';
import { ApiError, type ApiClient } from '@occ/contracts/client';

/**
 * Why the sign-in page shows: nothing to say (`none`), the session ended under the page
 * (`expired`: it expired, was revoked, or single sign-on ended it), the person signed out, or
 * signed out of OCC and on the way to end the identity provider's session too.
 */
export type SignedOutReason = 'none' | 'expired' | 'signed-out' | 'provider-sign-out';

/** `detail`: the controller's own words for why the session ended (its 401 message), when it gave them. */
export type SessionState = { status: 'checking' } | { status: 'signed-out'; reason: SignedOutReason; detail?: string } | { status: 'signed-in'; session: ConsoleSessionInfo };

/**
 * What this browser tab remembers across a reload or a trip to the identity provider: only
 * whether it was signed in, or signed out on purpose (never a token, a name or an id), so that
 * the sign-in page can say "your session ended" or "you are signed out" once, instead of nothing.
 */
export interface TabMemory {
  get(): 'signed-in' | 'signed-out' | null;
  set(value: 'signed-in' | 'signed-out' | null): void;
}

const MEMORY_KEY = 'occ.console.session';

/** The tab's sessionStorage; storage being unavailable (disabled, full) only loses the notice. */
function sessionStorageMemory(): TabMemory {
  const storage = (): Storage | undefined => {
    try {
      return globalThis.sessionStorage;
    } catch {
      return undefined;
    }
  };
  return {
    get() {
      try {
        const value = storage()?.getItem(MEMORY_KEY);
        return value === 'signed-in' || value === 'signed-out' ? value : null;
      } catch {
        return null;
      }
    },
    set(value) {
      try {
        if (value) storage()?.setItem(MEMORY_KEY, value);
        else storage()?.removeItem(MEMORY_KEY);
      } catch {
        // Nothing to do: the notice is a courtesy.
      }
    },
  };
}

export interface SessionStoreOptions {
  /** Sends the browser to the identity provider's sign-out page (window.location.assign). */
  leave?: (url: string) => void;
  memory?: TabMemory;
}

/** Only an http(s) URL is followed: whatever else an answer held, the page never navigates to it. */
function webUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Who is signed in. The session token lives only in the HttpOnly cookie; this store holds what
 * the server hands the page (principal, expiry, CSRF token) in memory — never in storage, so a
 * reload asks the server again (GET /sessions/current). Of the session, the tab remembers only
 * whether there was one (TabMemory).
 */
export class SessionStore {
  private current: SessionState = { status: 'checking' };
  private readonly listeners = new Set<(state: SessionState) => void>();
  private readonly leave: (url: string) => void;
  private readonly memory: TabMemory;

  constructor(options: SessionStoreOptions = {}) {
    this.leave = options.leave ?? ((url) => window.location.assign(url));
    this.memory = options.memory ?? sessionStorageMemory();
  }

  get state(): SessionState {
    return this.current;
  }

  get csrfToken(): string | undefined {
    return this.current.status === 'signed-in' ? this.current.session.csrfToken : undefined;
  }

  subscribe(listener: (state: SessionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads the cookie's session after a reload, or after single sign-on brought the browser back.
   * No session (401) is signed out: with a notice when this tab had one (it ended meanwhile: the
   * controller's message says why) or signed out on purpose (back from the provider's sign-out).
   */
  async resume(api: ApiClient): Promise<void> {
    try {
      const { data } = await api.call('getSession', {});
      this.signedIn(data);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      const remembered = this.memory.get();
      this.memory.set(null);
      if (remembered === 'signed-in') this.set({ status: 'signed-out', reason: 'expired', detail: error.message });
      else this.set({ status: 'signed-out', reason: remembered === 'signed-out' ? 'signed-out' : 'none' });
    }
  }

  async signIn(api: ApiClient, apiKey: string): Promise<void> {
    const { data } = await api.call('createSession', { body: { apiKey } });
    this.signedIn(data);
  }

  /**
   * Ends the session on the server first: only when it is gone (200, or 401 = already gone) is the
   * page signed out. Any other failure leaves it signed in and is thrown, so nobody believes they
   * signed out while the cookie still works. A single sign-on session's answer names the
   * provider's sign-out page: the page drops every private view, then the browser goes there
   * (the provider sends it back to the console).
   */
  async signOut(api: ApiClient): Promise<void> {
    let providerSignOutUrl: string | null = null;
    try {
      const { data } = await api.call('deleteSession', {});
      providerSignOutUrl = webUrl(data?.providerSignOutUrl);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    if (providerSignOutUrl) {
      this.memory.set('signed-out');
      this.set({ status: 'signed-out', reason: 'provider-sign-out' });
      this.leave(providerSignOutUrl);
      return;
    }
    this.memory.set(null);
    this.set({ status: 'signed-out', reason: 'signed-out' });
  }

  /** A 401 anywhere: the session ended (expired, revoked, key deleted, single sign-on ended it). */
  lost(detail?: string): void {
    if (this.current.status !== 'signed-in') return;
    this.memory.set(null);
    this.set({ status: 'signed-out', reason: 'expired', ...(detail ? { detail } : {}) });
  }

  private signedIn(session: ConsoleSessionInfo): void {
    this.memory.set('signed-in');
    this.set({ status: 'signed-in', session });
  }

  private set(state: SessionState): void {
    this.current = state;
    for (const listener of this.listeners) listener(state);
  }
}
