import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { KeyedMutex } from '../../src/drivers/compute/runtime-contract/keyed-mutex.ts';

/** The per-Agent lock of the local driver. */
describe('local ComputeDriver: keyed mutex', () => {
  it('runs holders of one key one at a time, in arrival order', async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    let inside = 0;
    let most = 0;
    const holder = (name: string, ms: number) =>
      mutex.run('agt', async () => {
        inside += 1;
        most = Math.max(most, inside);
        events.push(`${name}:in`);
        await sleep(ms);
        events.push(`${name}:out`);
        inside -= 1;
        return name;
      });
    const results = await Promise.all([holder('a', 30), holder('b', 5), holder('c', 15)]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
    expect(events).toEqual(['a:in', 'a:out', 'b:in', 'b:out', 'c:in', 'c:out']);
  });

  it('different keys never wait for each other', async () => {
    const mutex = new KeyedMutex();
    let release!: () => void;
    const blocked = mutex.run('one', () => new Promise<void>((resolve) => (release = resolve)));
    // `two` finishes while `one` is still held.
    await expect(mutex.run('two', async () => 'two done')).resolves.toBe('two done');
    expect(mutex.size).toBe(1);
    release();
    await blocked;
  });

  it('a holder that throws releases the key and the next one runs', async () => {
    const mutex = new KeyedMutex();
    const failing = mutex.run('agt', async () => {
      throw new Error('boom');
    });
    const next = mutex.run('agt', async () => 'next ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next ran');
  });

  it('leaves no entry behind once the last holder is done', async () => {
    const mutex = new KeyedMutex();
    const runs = Array.from({ length: 5 }, (_, i) => mutex.run(`k${i % 2}`, () => sleep(5)));
    expect(mutex.size).toBe(2);
    await Promise.all(runs);
    expect(mutex.size).toBe(0);
  });
});
