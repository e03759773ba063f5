import { request, type Agent, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { readBoundedText } from '@occ/host-io/bounded-body';
import { PluginDiscoveryError } from '../../../core/ports/plugin-driver.ts';

/** The most a hosted catalog response body may hold, checked before and while it streams. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpsTarget {
  /** Extra trusted roots (PEM), e.g. a test's throwaway CA; the default trust store otherwise. */
  ca?: string | undefined;
  maxBodyBytes?: number | undefined;
  /** A keep-alive pool: reusing TLS connections saves a handshake per upstream call. */
  agent?: Agent | undefined;
}

export interface BoundedRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  json?: unknown;
  /** Values the body must not contain (the credential): a body that echoes one is refused. */
  forbidden: readonly string[];
  /** A 404 means "no such item" (`not_found`) rather than `unavailable`. */
  notFoundOn404?: boolean;
}

/**
 * One HTTPS exchange with hard bounds: no redirects (a 3xx is `unavailable`), the body capped
 * by content-length and while streaming, and the caller's deadline signal. Non-OK statuses are
 * mapped to a reason without reading the body; an OK body must be JSON. Nothing upstream sent
 * ever reaches the error.
 */
export function boundedJsonRequest(target: HttpsTarget, req: BoundedRequest, signal: AbortSignal): Promise<unknown> {
  const maxBytes = target.maxBodyBytes ?? MAX_BODY_BYTES;
  const payload = req.json === undefined ? undefined : Buffer.from(JSON.stringify(req.json));
  const headers: Record<string, string> = { ...req.headers, accept: 'application/json', 'accept-encoding': 'identity' };
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const options: RequestOptions = { method: req.method, headers, agent: target.agent ?? false };
  if (target.ca !== undefined) options.ca = target.ca;

  return new Promise<unknown>((resolve, reject) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const finish = (error: PluginDiscoveryError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (error) {
        response?.destroy();
        outgoing.destroy();
        reject(error);
      } else {
        resolve(value);
      }
    };
    const onAbort = () => finish(new PluginDiscoveryError('unavailable'));

    const outgoing = request(req.url, options, (res) => {
      response = res;
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) return finish(new PluginDiscoveryError(reasonForStatus(status, req.notFoundOn404 === true)));
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) return finish(new PluginDiscoveryError('invalid_response'));
      res.on('aborted', () => finish(new PluginDiscoveryError('unavailable')));
      readBoundedText(res, maxBytes).then(
        (text) => (text === null ? finish(new PluginDiscoveryError('invalid_response')) : finish(...parseBody(text, req.forbidden))),
        () => finish(new PluginDiscoveryError('unavailable')),
      );
    });
    outgoing.on('error', () => finish(new PluginDiscoveryError('unavailable')));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    outgoing.end(payload);
  });
}

function reasonForStatus(status: number, notFoundOn404: boolean): 'credentials_rejected' | 'rate_limited' | 'not_found' | 'unavailable' {
  if (status === 401 || status === 403) return 'credentials_rejected';
  if (status === 429) return 'rate_limited';
  if (status === 404 && notFoundOn404) return 'not_found';
  return 'unavailable';
}

function parseBody(text: string, forbidden: readonly string[]): [PluginDiscoveryError | undefined, unknown?] {
  if (containsAny(text, forbidden)) return [new PluginDiscoveryError('invalid_response')];
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return [new PluginDiscoveryError('invalid_response')];
  }
  // Escaped forms (\u0061t-…) decode to the same string: check the decoded value too.
  if (containsAny(JSON.stringify(value), forbidden)) return [new PluginDiscoveryError('invalid_response')];
  return [undefined, value];
}

/** True when `text` contains any of the (non-empty) values. */
export function containsAny(text: string, values: readonly string[]): boolean {
  return values.some((value) => value.length > 0 && text.includes(value));
}
