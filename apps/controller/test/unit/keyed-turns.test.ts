import { describe, expect, it } from 'vitest';
import { KeyedTurns } from '../../src/core/keyed-turns.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedTurns', () => {
  it('runs the writers of one key one at a time, in arrival order, and hands each the value the previous one wrote', async () => {
    const turns = new KeyedTurns<number>();
    const log: string[] = [];
    const seen: (number | undefined)[] = [];
    const writer = (n: number) =>
      turns.run('a', async (turn) => {
        log.push(`start ${n}`);
        seen.push(turn.handedOver);
        await tick();
        log.push(`end ${n}`);
        turn.handOver(n);
      });
    await Promise.all([writer(1), writer(2), writer(3)]);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    expect(seen).toEqual([undefined, 1, 2]);
    // Nobody queued any more: nothing is kept, the next writer starts from nothing.
    expect(turns.size).toBe(0);
    await turns.run('a', async (turn) => void seen.push(turn.handedOver));
    expect(seen.at(-1)).toBeUndefined();
  });

  it('lets other keys run meanwhile, and a failing writer does not block the line', async () => {
    const turns = new KeyedTurns<string>();
    let releaseA!: () => void;
    const a = turns.run('a', () => new Promise<void>((resolve) => (releaseA = resolve)));
    expect(await turns.run('b', async () => 'b ran')).toBe('b ran');
    const failing = turns.run('a', async (turn) => {
      turn.handOver('never');
      throw new Error('boom');
    });
    // handOver before a throw still counts as written by that writer; what matters is the line moves on.
    const next = turns.run('a', async (turn) => turn.handedOver ?? 'nothing');
    releaseA();
    await a;
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('never');
    expect(turns.size).toBe(0);
  });
});
