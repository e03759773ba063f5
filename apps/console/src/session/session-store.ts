import type { ConsoleSessionInfo } from '@occ/contracts';
import { ApiError, type ApiClient } from '@occ/contracts/client';

/**
 * Who is signed in. The session token lives only in the HttpOnly cookie; this store holds what
 * the server hands the page (principal, expiry, CSRF token) in memory — never in storage, so a
 * reload asks the server again (GET /sessions/current).
 */
export type SessionState = { status: 'checking' } | { status: 'signed-out'; reason: 'none' | 'expired' | 'signed-out' } | { status: 'signed-in'; session: ConsoleSessionInfo };

export class SessionStore {
  private current: SessionState = { status: 'checking' };
  private readonly listeners = new Set<(state: SessionState) => void>();

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

  /** Reads the cookie's session after a reload; no cookie (401) is simply signed out. */
  async resume(api: ApiClient): Promise<void> {
    try {
      const { data } = await api.call('getSession', {});
      this.set({ status: 'signed-in', session: data });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.set({ status: 'signed-out', reason: 'none' });
      else throw error;
    }
  }

  async signIn(api: ApiClient, apiKey: string): Promise<void> {
    const { data } = await api.call('createSession', { body: { apiKey } });
    this.set({ status: 'signed-in', session: data });
  }

  /**
   * Ends the session on the server first: only when it is gone (204, or 401 = already gone) is the
   * page signed out. Any other failure leaves it signed in and is thrown, so nobody believes they
   * signed out while the cookie still works.
   */
  async signOut(api: ApiClient): Promise<void> {
    try {
      await api.call('deleteSession', {});
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    this.set({ status: 'signed-out', reason: 'signed-out' });
  }

  /** A 401 anywhere: the session ended (expired, revoked, key deleted). */
  lost(): void {
    if (this.current.status === 'signed-in') this.set({ status: 'signed-out', reason: 'expired' });
  }

  private set(state: SessionState): void {
    this.current = state;
    for (const listener of this.listeners) listener(state);
  }
}
