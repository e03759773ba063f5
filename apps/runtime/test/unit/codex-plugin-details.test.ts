import { describe, expect, it } from 'vitest';
import { AppServerError } from '../../src/codex/app-server-client.ts';
import { readCodexPluginDetails, type PluginLocation } from '../../src/codex/plugin-details.ts';

/** A client that answers `plugin/read` after a delay and records what was in flight when. */
function scriptedClient(script: (name: string, call: number) => { delayMs: number; fail?: AppServerError }) {
  const events: string[] = [];
  const calls = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    events,
    get maxInFlight() {
      return maxInFlight;
    },
    async request<T>(method: string, params?: unknown): Promise<T> {
      const { pluginName } = params as PluginLocation;
      const call = (calls.get(pluginName) ?? 0) + 1;
      calls.set(pluginName, call);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      events.push(`start ${pluginName}#${call}`);
      const { delayMs, fail } = script(pluginName, call);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      inFlight--;
      events.push(`end ${pluginName}#${call}`);
      if (fail) throw fail;
      return { plugin: { name: pluginName, method } } as T;
    },
  };
}

const selections = (names: string[]): PluginLocation[] => names.map((pluginName) => ({ pluginName, marketplacePath: '/m/marketplace.json' }));

describe('readCodexPluginDetails', () => {
  it('[X-3] reads at most four at a time, in selection order, and answers in selection order whatever finishes first', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const client = scriptedClient((name) => ({ delayMs: 60 - names.indexOf(name) * 10 }));
    const details = await readCodexPluginDetails<{ name: string }>(client, selections(names));
    expect(details.map((d) => d.name)).toEqual(names);
    expect(client.maxInFlight).toBe(4);
    const starts = client.events.filter((e) => e.startsWith('start'));
    expect(starts).toEqual(['start a#1', 'start b#1', 'start c#1', 'start d#1', 'start e#1', 'start f#1']);
    // The second batch starts only after all of the first has settled.
    expect(client.events.indexOf('start e#1')).toBeGreaterThan(Math.max(...['a', 'b', 'c', 'd'].map((n) => client.events.indexOf(`end ${n}#1`))));
  });

  it('[X-3] a batch drains before a failed read is retried; a late answer is retried, then succeeds', async () => {
    const client = scriptedClient((name, call) => ({
      delayMs: name === 'b' ? 5 : 40,
      ...(name === 'b' && call === 1 ? { fail: new AppServerError('timeout', 'plugin/read') } : {}),
    }));
    const details = await readCodexPluginDetails<{ name: string }>(client, selections(['a', 'b', 'c']));
    expect(details.map((d) => d.name)).toEqual(['a', 'b', 'c']);
    const retry = client.events.indexOf('start b#2');
    expect(retry).toBeGreaterThan(client.events.indexOf('end a#1'));
    expect(retry).toBeGreaterThan(client.events.indexOf('end c#1'));
  });

  it('a read that fails for good (not found, a dead connection) is thrown once its batch has drained, without a retry', async () => {
    const notFound = new AppServerError('rpc', 'plugin/read', -32600, 'plugin `b` was not found');
    const client = scriptedClient((name) => ({ delayMs: name === 'b' ? 1 : 30, ...(name === 'b' ? { fail: notFound } : {}) }));
    await expect(readCodexPluginDetails(client, selections(['a', 'b', 'c', 'd', 'e']))).rejects.toBe(notFound);
    expect(client.events).toContain('end a#1');
    expect(client.events).toContain('end d#1');
    expect(client.events).not.toContain('start b#2');
    expect(client.events).not.toContain('start e#1');
  });

  it("a read still late after every attempt is thrown; attempts and concurrency are the caller's", async () => {
    const late = new AppServerError('timeout', 'plugin/read');
    const client = scriptedClient((name) => ({ delayMs: 1, ...(name === 'a' ? { fail: late } : {}) }));
    await expect(readCodexPluginDetails(client, selections(['a', 'b']), { attempts: 3, concurrency: 1 })).rejects.toBe(late);
    expect(client.events.filter((e) => e.startsWith('start a'))).toEqual(['start a#1', 'start a#2', 'start a#3']);
    expect(client.maxInFlight).toBe(1);
    await expect(readCodexPluginDetails(client, selections(['a']), { concurrency: 0 })).rejects.toThrow(RangeError);
  });
});
