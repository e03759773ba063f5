// Driving a real agent with the scripted model (scripted-model-server.ts): the Configuration that
// points an OpenClaw gateway at it, and one turn in which the model calls a tool, read back from
// what the gateway sent the model next. Shared by the break-out tests of every compute target.
import { expect } from 'vitest';
import type { RecordedModelRequest, ScriptedModelServer } from './scripted-model-server.ts';
import type { ScriptedResponsesServer } from './scripted-responses-server.ts';

/**
 * Configuration values for an Agent whose model is the scripted one at `baseUrl` (the server's own,
 * or a relay to it that the Agent can reach). No tools profile and no deny: OpenClaw offers its
 * core read, write and exec. `toolSearch`: OpenClaw's structured Tool Search (tool_search and
 * tool_call) instead of direct schemas; OpenClaw 2026.9.5 turns it on only when configured.
 * `apiKey`: the provider key as OpenClaw takes it (a literal or a SecretRef).
 */
export function scriptedModelConfiguration(
  model: ScriptedModelServer,
  { baseUrl = model.baseUrl, toolSearch = false, apiKey = 'not-a-secret' as unknown } = {},
): Record<string, unknown> {
  return {
    gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } },
    agents: { defaults: { model: { primary: `scripted/${model.modelId}` } } },
    models: {
      mode: 'merge',
      providers: {
        scripted: {
          baseUrl,
          apiKey,
          api: 'openai-completions',
          models: [
            {
              id: model.modelId,
              name: 'Scripted',
              reasoning: false,
              input: ['text'],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: 128_000,
              maxTokens: 4096,
            },
          ],
        },
      },
    },
    tools: { toolSearch: toolSearch ? { enabled: true, mode: 'tools' } : false },
  };
}

export interface GatewayAddress {
  /** Where the test reaches the gateway (a loopback port on the host). */
  port: number;
  token: string;
}

/** One user message through the gateway's OpenAI-compatible endpoint. */
export async function sendMessage(gateway: GatewayAddress, text: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${gateway.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openclaw/default', messages: [{ role: 'user', content: text }] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: await res.json() };
}

/** The model calls `name` with `args`; returns what the tool answered (the tool message the gateway sent back to the model). */
export async function callTool(model: ScriptedModelServer, gateway: GatewayAddress, name: string, args: Record<string, unknown>, timeoutMs: number): Promise<string> {
  const mark = model.completions().length;
  model.enqueue({ kind: 'tool-call', name, arguments: args }, { kind: 'text', text: 'done' });
  const answer = await sendMessage(gateway, `Call ${name}.`, timeoutMs);
  expect(answer.status).toBe(200);
  const turn = model.completions().slice(mark);
  expect(turn.length).toBeGreaterThanOrEqual(2);
  return toolResult(turn[1]!);
}

function toolResult(request: RecordedModelRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const result = messages.filter((m) => m.role === 'tool').at(-1);
  if (!result) throw new Error('no tool result in the request');
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

/**
 * One Codex turn in which the scripted Responses model (scripted-responses-server.ts) calls the
 * `exec` tool Codex offers (its own function or inside a namespace, as the last turn's tools say)
 * with `command`; returns what the tool gave back to the model. Shared by the Codex attack tests.
 */
export async function execThroughCodexTurn(model: ScriptedResponsesServer, gateway: GatewayAddress, command: string, timeoutMs = 240_000): Promise<string> {
  const offered = (model.turns().at(-1)?.body.tools ?? []) as Array<{ type?: string; name?: string; tools?: Array<{ name?: string }> }>;
  const namespace = offered.find((tool) => tool.type === 'namespace' && tool.tools?.some((inner) => inner.name === 'exec'))?.name;
  expect(namespace !== undefined || offered.some((tool) => tool.name === 'exec')).toBe(true);
  const answered = new Set(model.toolOutputs().keys());
  model.enqueue({ kind: 'tool-call', name: 'exec', ...(namespace ? { namespace } : {}), arguments: { command } }, { kind: 'text', text: 'probe done' });
  const answer = await sendMessage(gateway, 'Run the probe.', timeoutMs);
  expect(answer.status).toBe(200);
  // What the tool returned to the model: the one output this turn added (over a WebSocket Codex sends only new input items).
  const added = [...model.toolOutputs()].filter(([callId]) => !answered.has(callId));
  expect(added, JSON.stringify(model.requests.slice(-3).map((request) => request.body.input)).slice(-4000)).toHaveLength(1);
  return added[0]![1];
}
