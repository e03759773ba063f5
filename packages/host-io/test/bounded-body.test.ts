import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBoundedText } from '../src/bounded-body.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

function webStream(chunks: Uint8Array[], onCancel: () => void = () => {}): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(chunks[index++]!);
      else controller.close();
    },
    cancel: onCancel,
  });
}

describe('readBoundedText', () => {
  it('reads a body up to and including the cap', async () => {
    expect(await readBoundedText(webStream([bytes('ab'), bytes('cd')]), 4)).toBe('abcd');
    expect(await readBoundedText(Readable.from([Buffer.from('{"ready":'), Buffer.from('true}')]), 1024)).toBe('{"ready":true}');
    expect(await readBoundedText(webStream([]), 0)).toBe('');
  });

  it('decodes a character split across chunks', async () => {
    const euro = bytes('€');
    expect(await readBoundedText(webStream([euro.slice(0, 1), euro.slice(1)]), 3)).toBe('€');
  });

  it('answers null one byte past the cap and cancels the rest of a web stream', async () => {
    let cancelled = false;
    let pulled = 0;
    const chunks = [bytes('abc'), bytes('de'), bytes('never read')];
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          controller.enqueue(chunks[pulled++]!);
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    ); // pulled only when read, so the count shows what was read
    expect(await readBoundedText(stream, 4)).toBeNull();
    expect(cancelled).toBe(true);
    expect(pulled).toBe(2);
  });

  it('destroys a Node stream it stops reading', async () => {
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < 1000; i++) yield Buffer.alloc(1024);
      })(),
    );
    expect(await readBoundedText(source, 10 * 1024)).toBeNull();
    expect(source.destroyed).toBe(true);
  });

  it('lets an error of the stream through', async () => {
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('reset'));
      },
    });
    await expect(readBoundedText(failing, 10)).rejects.toThrow('reset');
  });
});
