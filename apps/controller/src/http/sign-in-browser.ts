import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ControllerDeps } from '../core/deps.ts';
import { OccError } from '../core/errors.ts';
import { clearedSignInCookie, SIGN_IN_COOKIE, sessionCookie, signInCookie, tokenFromCookie } from '../core/iam/console-session-tokens.ts';
import { OIDC_CALLBACK_PATH, OIDC_START_PATH } from '../core/iam/sign-in-urls.ts';
import { finishBrowserSignIn, startBrowserSignIn } from '../core/use-cases/sign-in.ts';
import { toErrorBody } from './error-mapping.ts';

/** A sign-in page has no script, no style from elsewhere, and may not be framed. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The clear page a refused person sees: what happened, in OCC's words (never the provider's), and a way back. */
function refusalPage(title: string, message: string, requestId: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} — OCC</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}code{font-size:.9em}</style></head>
<body><main><h1>${escapeHtml(title)}</h1><p role="alert">${escapeHtml(message)}</p>
<p><a href="/">Back to the OCC console</a></p><p><small>Request <code>${escapeHtml(requestId)}</code></small></p></main></body></html>
`;
}

function sendRefusal(reply: FastifyReply, error: unknown, requestId: string): FastifyReply {
  const body = toErrorBody(error);
  const title = body.code === 'SIGN_IN_REFUSED' ? 'Sign-in refused' : body.status >= 500 ? 'Sign-in unavailable' : 'Sign-in not possible';
  return reply
    .code(body.status)
    .headers({ ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' })
    .send(refusalPage(title, body.message, requestId));
}

/** The URL the browser came back on, as the provider sent it (the redirect URI's origin is configuration, not the Host header). */
const callbackUrl = (request: FastifyRequest) => new URL(request.url, 'http://callback.invalid');

/**
 * The browser's two steps of single sign-on (docs/sign-in.md): not API routes (they answer with
 * redirects and pages, not JSON), so outside the route table and OpenAPI, like the console.
 */
export function registerBrowserSignIn(app: FastifyInstance, deps: ControllerDeps): void {
  app.route({
    method: 'GET',
    url: OIDC_START_PATH,
    schema: { hide: true },
    // A HEAD would start a sign-in that no browser follows.
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      // Secure over TLS to OCC itself, or when OCC's public URL is https (a proxy that ends TLS).
      const secure = request.protocol === 'https';
      try {
        const { redirectUrl, browserToken, httpsPublicUrl } = await startBrowserSignIn(deps);
        return reply
          .code(303)
          .headers({ ...PAGE_HEADERS, location: redirectUrl, 'set-cookie': signInCookie(browserToken, secure || httpsPublicUrl, OIDC_START_PATH) })
          .send();
      } catch (error) {
        return sendRefusal(reply, error, request.id);
      }
    },
  });
  app.route({
    method: 'GET',
    url: OIDC_CALLBACK_PATH,
    schema: { hide: true },
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const secure = request.protocol === 'https';
      const clearAttempt = clearedSignInCookie(secure, OIDC_START_PATH);
      try {
        const url = callbackUrl(request);
        const signedIn = await finishBrowserSignIn(deps, url, tokenFromCookie(request.headers.cookie, SIGN_IN_COOKIE), request.id);
        // The console reads its session (and CSRF token) with GET /sessions/current once it loads.
        return reply
          .code(303)
          .headers({ ...PAGE_HEADERS, location: '/' })
          .header('set-cookie', [sessionCookie(signedIn.token, secure || signedIn.httpsPublicUrl), clearAttempt])
          .send();
      } catch (error) {
        if (!(error instanceof OccError) || toErrorBody(error).status >= 500) request.log.warn({ errorName: (error as Error).name }, 'browser sign-in failed');
        reply.header('set-cookie', clearAttempt);
        return sendRefusal(reply, error, request.id);
      }
    },
  });
}
