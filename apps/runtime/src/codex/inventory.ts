import type { CodexMcpServerStatus } from '@occ/policy';
import type { AppServerClient } from './app-server-client.ts';
import { appServerStep, malformedAnswer } from './startup-failure.ts';

/** The app-server's `McpServerStatus` as far as tool binding reads it; each tool is checked by the binder (@occ/policy). */
export type McpServerInventory = CodexMcpServerStatus;

const MAX_PAGES = 100;

/**
 * Every page of `mcpServerStatus/list` (`detail: toolsAndAuthOnly`): the `codex_apps` inventory
 * that explicit tool policies bind through ([X-9]). Cursors are opaque; a repeated cursor or more
 * than 100 pages is a protocol failure, not an endless loop.
 */
export async function readMcpInventory(client: Pick<AppServerClient, 'request'>, options: { timeoutMs: number; signal: AbortSignal }): Promise<McpServerInventory[]> {
  const servers: McpServerInventory[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params: { detail: 'toolsAndAuthOnly'; cursor?: string } = cursor === null ? { detail: 'toolsAndAuthOnly' } : { detail: 'toolsAndAuthOnly', cursor };
    const answer = await appServerStep('the MCP inventory read', () => client.request<unknown>('mcpServerStatus/list', params, options));
    const { data, nextCursor } = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    if (!Array.isArray(data) || (nextCursor !== null && typeof nextCursor !== 'string')) throw malformedAnswer('mcpServerStatus/list', 'data/nextCursor');
    for (const server of data) {
      const { name, tools, toolsError } = (typeof server === 'object' && server !== null ? server : {}) as Record<string, unknown>;
      if (typeof name !== 'string' || typeof tools !== 'object' || tools === null || Array.isArray(tools) || (toolsError !== null && typeof toolsError !== 'string')) {
        throw malformedAnswer('mcpServerStatus/list', 'server');
      }
      servers.push({ name, tools: tools as CodexMcpServerStatus['tools'], toolsError: toolsError as string | null });
    }
    if (nextCursor === null) return servers;
    if (seen.has(nextCursor)) throw malformedAnswer('mcpServerStatus/list', 'repeated cursor');
    seen.add(nextCursor);
    cursor = nextCursor;
  }
  throw malformedAnswer('mcpServerStatus/list', 'more than 100 pages');
}
