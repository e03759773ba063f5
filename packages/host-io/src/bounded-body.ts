/**
 * Reads a body (a fetch `ReadableStream`, a Node `IncomingMessage`, any async iterable of
 * bytes) as UTF-8 text, or null as soon as it passes `maxBytes`: nothing beyond the cap is
 * buffered, and leaving the loop early cancels (destroys) the stream, so a peer cannot make
 * the reader hold more than the cap. Errors of the stream itself propagate.
 */
export async function readBoundedText(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
