import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceType } from './resources.ts';
import { parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { expired } from './status.ts';
import type { Change, ObjectStore } from './store.ts';

/**
 * `?watch=true`: a chunked stream of newline-delimited `{"type","object"}` events. Without a
 * resourceVersion (or with "0") it starts with ADDED for every current object, as the real server
 * does; with one it replays the kept changes after it, or sends a 410 Expired ERROR event. With a
 * selector, an object that starts matching is ADDED and one that stops matching is DELETED.
 */
export function serveWatch(
  store: ObjectStore,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'));
  const matches = (object: any) => (namespace === undefined || object.metadata.namespace === namespace) && labels(object.metadata.labels) && fields(object);
  response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  response.flushHeaders();
  const send = (event: { type: string; object: unknown }) => {
    if (!response.writableEnded) response.write(`${JSON.stringify(event)}\n`);
  };
  /** The event this watch sees of a change, if any. */
  const seen = (change: Change): { type: string; object: unknown } | undefined => {
    const now = matches(change.object);
    if (change.type !== 'MODIFIED' || !change.previous) return now ? { type: change.type, object: change.object } : undefined;
    const before = matches(change.previous);
    if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: change.object };
    return before ? { type: 'DELETED', object: change.object } : undefined;
  };

  const pending: Change[] = [];
  let replaying = true;
  const unsubscribe = store.subscribe((change) => {
    if (change.resource !== type) return;
    if (replaying) pending.push(change);
    else {
      const event = seen(change);
      if (event) send(event);
    }
  });
  const stop = () => {
    unsubscribe();
    clearTimeout(timer);
    if (!response.writableEnded) response.end();
  };
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? 0);
  const timer = setTimeout(stop, timeoutSeconds > 0 ? timeoutSeconds * 1000 : 30 * 60 * 1000);
  request.on('close', stop);
  response.on('close', stop);

  const from = query.get('resourceVersion');
  if (!from || from === '0') {
    for (const object of store.list(type, namespace)) if (matches(object)) send({ type: 'ADDED', object });
  } else {
    const changes = store.changesSince(Number(from));
    if (!changes) {
      send({ type: 'ERROR', object: expired(from).body() });
      stop();
      return;
    }
    for (const change of changes) {
      const event = change.resource === type ? seen(change) : undefined;
      if (event) send(event);
    }
  }
  replaying = false;
  for (const change of pending.splice(0)) {
    const event = seen(change);
    if (event) send(event);
  }
}
