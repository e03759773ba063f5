/** One Server-Sent Event of a deployment event stream, as a test reads it. */
export interface SseEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** The events of an SSE body (comments skipped). */
export function parseSse(body: string): SseEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? '';
      return { id: field('id'), event: field('event'), data: JSON.parse(field('data')) as Record<string, unknown> };
    });
}

/** What a person reads of a deployment event: type, step and plugin, attempt, failure or outcome code. */
export const eventShape = (e: SseEvent) =>
  [e.event, e.data.step ?? e.data.reasonCode ?? e.data.attempt ?? e.data.code ?? null, e.data.pluginId ?? e.data.result ?? null].filter((x) => x !== null).join(' ');
