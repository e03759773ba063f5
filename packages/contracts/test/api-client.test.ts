import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiError, ApiUnreachableError, createApiClient, readServerSentEvents, routePath, type FetchFunction } from '../src/client/index.ts';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** A fetch that records what it was asked and answers with `answer`. */
function recordingFetch(answer: () => Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch: FetchFunction = async (url, init) => {
    calls.push({ url, init });
    return answer();
  };
  return { calls, fetch };
}

describe('the typed API client', () => {
  it('fills path parameters URL-encoded and refuses a missing one', () => {
    expect(routePath('/namespaces/:ns/agents/:id', { ns: 'ns_1', id: 'a/b' })).toBe('/namespaces/ns_1/agents/a%2Fb');
    expect(() => routePath('/namespaces/:ns', {})).toThrow('Missing path parameter ns');
  });

  it('sends the key, If-Match and a JSON body to the route of the operation, and returns data and ETag', async () => {
    const { calls, fetch } = recordingFetch(() => new Response(JSON.stringify({ data: { id: 'agt_x' }, meta: { requestId: 'req_1' } }), { status: 200, headers: { etag: '"3"' } }));
    const client = createApiClient({ server: 'http://occ.test/', apiKey: 'k-123', fetch });
    const result = await client.call('updateAgent', { params: { ns: 'ns_1', id: 'agt_x' }, body: { name: 'n' }, ifMatch: '"2"' });
    expect(result).toMatchObject({ status: 200, data: { id: 'agt_x' }, etag: '"3"', requestId: 'req_1' });
    expect(calls[0]!.url).toBe('http://occ.test/namespaces/ns_1/agents/agt_x');
    expect(calls[0]!.init).toMatchObject({
      method: 'PATCH',
      body: '{"name":"n"}',
      headers: { authorization: 'Bearer k-123', 'if-match': '"2"', 'content-type': 'application/json' },
    });
  });

  it('never sends the key to a public route', async () => {
    const { calls, fetch } = recordingFetch(() => new Response(JSON.stringify({ data: { status: 'ok' }, meta: { requestId: 'r' } })));
    await createApiClient({ server: 'http://occ.test', apiKey: 'k-123', fetch }).call('healthz', {});
    expect((calls[0]!.init.headers as Record<string, string>).authorization).toBeUndefined();
  });

  it('sends a console session its CSRF token on mutations only, read at each request, never to a public route', async () => {
    const { calls, fetch } = recordingFetch(() => new Response(JSON.stringify({ data: {}, meta: { requestId: 'r' } })));
    let token: string | undefined = 'csrf-1';
    const client = createApiClient({ server: '', csrfToken: () => token, fetch });
    await client.call('deployAgent', { params: { ns: 'ns_1', id: 'agt_x' } });
    await client.call('listAgents', { params: { ns: 'ns_1' } });
    await client.call('createSession', { body: { apiKey: 'k' } });
    token = 'csrf-2';
    await client.call('deleteSession', {});
    const sent = calls.map((call) => (call.init.headers as Record<string, string>)['x-csrf-token']);
    expect(sent).toEqual(['csrf-1', undefined, undefined, 'csrf-2']);
    expect(calls[0]!.url).toBe('/namespaces/ns_1/agents/agt_x/deploy');
  });

  it('turns an error envelope into an ApiError with its code and pointers, and a non-JSON answer into HTTP_<status>', async () => {
    const envelope = { error: { code: 'INVALID_REQUEST', message: 'bad', details: [{ path: '/name', code: 'REQUIRED' }] }, meta: { requestId: 'req_9' } };
    const bad = createApiClient({ server: 'http://occ.test', fetch: async () => new Response(JSON.stringify(envelope), { status: 400 }) });
    await expect(bad.call('createNamespace', { body: { name: '' } })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
      details: [{ path: '/name', code: 'REQUIRED' }],
      requestId: 'req_9',
    });
    const proxy = createApiClient({ server: 'http://occ.test', fetch: async () => new Response('<html>bad gateway secret=1</html>', { status: 502, statusText: 'Bad Gateway' }) });
    const error = await proxy.call('listNamespaces', {}).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('HTTP_502');
    expect(error.message).not.toContain('secret');
  });

  it('reports a server that does not answer as unreachable, naming the socket error', async () => {
    // A port the OS just gave out and nobody listens on any more.
    const server = createServer();
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    await new Promise((resolve) => server.close(resolve));
    const client = createApiClient({ server: `http://127.0.0.1:${port}`, fetch: (url, init) => fetch(url, init) });
    const error = await client.call('listNamespaces', {}).catch((e) => e);
    expect(error).toBeInstanceOf(ApiUnreachableError);
    expect(error.message).toBe(`Cannot reach http://127.0.0.1:${port}: ECONNREFUSED`);
  });

  it('follows nextCursor through every page of a list', async () => {
    const pages: Record<string, unknown> = { '': { items: [{ id: 1 }], nextCursor: 'c2' }, c2: { items: [{ id: 2 }], nextCursor: null } };
    const { calls, fetch } = recordingFetch(() => new Response());
    const client = createApiClient({
      server: 'http://occ.test',
      fetch: async (url, init) => {
        await fetch(url, init);
        return new Response(JSON.stringify({ data: pages[new URL(url).searchParams.get('cursor') ?? ''], meta: { requestId: 'r' } }));
      },
    });
    expect(await client.listAll('listNamespaces', { query: { limit: 1 } })).toEqual([{ id: 1 }, { id: 2 }]);
    expect(calls.map((c) => new URL(c.url).search)).toEqual(['?limit=1', '?limit=1&cursor=c2']);
  });
});

describe('reading Server-Sent Events', () => {
  it('parses ids, event names and JSON data across chunk boundaries, skipping comments', async () => {
    const events = await collect(
      readServerSentEvents(streamOf(': keep-alive\n\nid: 1\nevent: adm', 'itted\ndata: {"type":"admitted"}\n\n', 'id: 2\r\nevent: step\r\ndata: {"a":\r\ndata: 1}\r\n\r\n')),
    );
    expect(events).toEqual([
      { id: '1', event: 'admitted', data: { type: 'admitted' } },
      { id: '2', event: 'step', data: { a: 1 } },
    ]);
  });

  it('a stream that ends mid-event yields nothing for it', async () => {
    expect(await collect(readServerSentEvents(streamOf('id: 1\ndata: {"x":1}\n')))).toEqual([]);
  });

  it('streams a route with Last-Event-ID', async () => {
    const { calls, fetch } = recordingFetch(
      () => new Response(streamOf('id: 7\nevent: succeeded\ndata: {"type":"succeeded"}\n\n'), { headers: { 'content-type': 'text/event-stream' } }),
    );
    const client = createApiClient({ server: 'http://occ.test', apiKey: 'k', fetch });
    const events = await collect(client.stream('streamDeploymentEvents', { params: { ns: 'n', id: 'a', rev: 'r' }, lastEventId: '6' }));
    expect(events).toEqual([{ id: '7', event: 'succeeded', data: { type: 'succeeded' } }]);
    expect(calls[0]!.init.headers).toMatchObject({ accept: 'text/event-stream', 'last-event-id': '6' });
  });
});
