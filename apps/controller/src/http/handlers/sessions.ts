import { clearedSessionCookie, sessionCookie } from '../../core/iam/console-session-tokens.ts';
import { createSession, deleteSession, sessionView } from '../../core/use-cases/console-sessions.ts';
import type { HandlerMap } from './handler.ts';

/** Console sessions: the token goes out once, in the Set-Cookie of the answer that issues it. */
export const sessionHandlers = {
  createSession: async ({ deps, body, secure, requestId }) => {
    const { token, view } = await createSession(deps, body.apiKey, requestId);
    return { data: view, headers: { 'set-cookie': sessionCookie(token, secure) } };
  },
  getSession: async ({ session }) => ({ data: sessionView(session!) }),
  deleteSession: async ({ deps, caller, session, secure }) => {
    const signedOut = await deleteSession(deps, caller, session!);
    return { data: signedOut, headers: { 'set-cookie': clearedSessionCookie(secure) } };
  },
} satisfies Partial<HandlerMap>;
