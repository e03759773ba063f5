/** One Server-Sent Event as the WHATWG event-stream format defines it, with its data parsed as JSON. */
export interface ServerSentEvent<T> {
  id: string | undefined;
  event: string;
  data: T;
}

/**
 * Parses a `text/event-stream` body (comments skipped, multi-line data joined, CRLF/CR/LF line
 * ends) into events whose data is the raw text: a stream that is not OCC's (an OpenAI-compatible
 * gateway ends with `data: [DONE]`) reads this way.
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent<string>> {
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: RegExpExecArray | null;
    while ((end = /\r\n|\r|\n/.exec(buffer))) {
      // A CR at the very end may be the first half of a CRLF still in flight.
      if (end[0] === '\r' && end.index === buffer.length - 1) break;
      const line = buffer.slice(0, end.index);
      buffer = buffer.slice(end.index + end[0].length);
      if (line === '') {
        if (data.length > 0) yield { id, event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id' && !value.includes('\0')) id = value;
    }
  }
}

/** OCC's own event streams: each event's data is JSON (this API sends nothing else). */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent<unknown>> {
  for await (const event of readEventStream(body)) yield { ...event, data: JSON.parse(event.data) };
}
