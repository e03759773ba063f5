import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DEGRADED_STATE_MARKER, forwardLines } from '../../src/gateway.ts';

describe('the gateway’s output on its way to the runtime log', () => {
  it('is copied unchanged, and each line is seen whole even when it arrives cut across chunks', async () => {
    const from = new PassThrough();
    const to = new PassThrough();
    let copied = '';
    to.on('data', (chunk: Buffer) => (copied += chunk.toString('utf8')));
    const lines: string[] = [];
    forwardLines(from, to, (line) => lines.push(line));
    const text = `[gateway] starting\n[state-migrations] ${DEGRADED_STATE_MARKER}\nlast line without newline`;
    const cut = text.indexOf('degraded') + 3;
    from.write(text.slice(0, cut));
    from.write(text.slice(cut));
    from.end();
    await new Promise((resolve) => from.on('end', resolve));
    expect(copied).toBe(text);
    expect(lines).toEqual(['[gateway] starting', `[state-migrations] ${DEGRADED_STATE_MARKER}`, 'last line without newline']);
  });
});
