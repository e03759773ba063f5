import type { PluginCatalogEntry, PluginCatalogPage } from '@occ/contracts';
import type { DiscoveryApi } from '../../src/picker/discovery-api.ts';

/**
 * A DiscoveryApi whose answers the test gives by hand, in any order: each call is recorded with
 * its operation, body and AbortSignal and stays pending until the test resolves or rejects it.
 */
export interface ScriptedCall {
  operationId: string;
  params: Record<string, string>;
  body: Record<string, unknown>;
  signal: AbortSignal;
  answer(data: PluginCatalogPage | PluginCatalogEntry): Promise<void>;
  fail(error: Error): Promise<void>;
}

/** Lets the model's promise chains run after an answer (a few microtask hops through `await`). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

export function scriptedApi(): { api: DiscoveryApi; calls: ScriptedCall[] } {
  const calls: ScriptedCall[] = [];
  const call = (operationId: string, input: { params: Record<string, string>; body: Record<string, unknown>; signal: AbortSignal }) =>
    new Promise((resolve, reject) => {
      calls.push({
        operationId,
        params: input.params,
        body: input.body,
        signal: input.signal,
        answer: async (data) => {
          resolve({ status: 200, data, etag: undefined, requestId: undefined });
          await settle();
        },
        fail: async (error) => {
          reject(error);
          await settle();
        },
      });
    });
  return { api: { call: call as unknown as DiscoveryApi['call'] }, calls };
}

export function entry(id: string, overrides: Partial<PluginCatalogEntry> = {}): PluginCatalogEntry {
  return { id, name: id, available: true, tools: [], ...overrides };
}

export function page(ids: string[], nextCursor: string | null = null, overrides: Partial<PluginCatalogEntry> = {}): PluginCatalogPage {
  return { plugins: ids.map((id) => entry(id, overrides)), nextCursor };
}

export const NS = 'ns_0000000000000000000001';
export const SECRET_REF = { kind: 'secret' as const, namespaceId: NS, id: 'sec_0000000000000000000001' };
export const CREATE_PAT = { kind: 'create' as const, namespaceId: NS, harness: 'codex' as const, secretRef: SECRET_REF };
export const OTHER_PAT = { kind: 'create' as const, namespaceId: NS, harness: 'codex' as const, secretRef: { ...SECRET_REF, id: 'sec_0000000000000000000002' } };
export const BOUND_AGENT = { kind: 'agent' as const, namespaceId: NS, agentId: 'agt_0000000000000000000001' };
