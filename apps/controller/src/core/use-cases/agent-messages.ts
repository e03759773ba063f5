import { randomBytes } from 'node:crypto';
import { AGENT_REPLY_KEEPALIVE_MS, AGENT_REPLY_MAX_CHARS, AGENT_REPLY_MAX_MS, type AgentMessageBody, type AgentMessageEvent, type AgentRevision } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { conflict, notFound, OccError } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import type { GatewayReplyChunk } from '../ports/compute-driver.ts';

/**
 * `POST …/agents/:id/messages`: one message to the Agent's running gateway, the reply streamed as
 * Server-Sent Events. The route has already checked `agent:message` on the exact Agent.
 *
 * Before the first byte of the stream (answered as JSON errors): the Agent must have an active
 * revision (409 AGENT_NOT_RUNNING naming its state), the ComputeDriver must be able to relay
 * (501), the revision's Configuration must turn on the gateway's chat endpoint (409), and the
 * gateway must accept the message (409 when the runtime is not serving, 503 when it does not
 * answer). Only then is the audit event written — who, which revision, the conversation and the
 * message's length, never its text — and the stream starts; an audit write that fails aborts the
 * relay (the gateway cancels the turn) and answers 500, as a failed audit rolls a mutation back.
 *
 * The driver alone knows the gateway's address and token (the token never reaches this module)
 * and redacts the reply of the runtime's tokens and delivered Secret values.
 */

export interface ReplyStreamBounds {
  maxMs: number;
  maxChars: number;
  keepAliveMs: number;
}

const DEFAULT_REPLY_BOUNDS: ReplyStreamBounds = { maxMs: AGENT_REPLY_MAX_MS, maxChars: AGENT_REPLY_MAX_CHARS, keepAliveMs: AGENT_REPLY_KEEPALIVE_MS };

/** OpenClaw serves its OpenAI-compatible endpoint only when the Configuration turns it on. */
function chatEndpointEnabled(values: Record<string, unknown>): boolean {
  const at = (node: unknown, key: string): unknown => (node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined);
  return at(at(at(at(at(values, 'gateway'), 'http'), 'endpoints'), 'chatCompletions'), 'enabled') === true;
}

/** The gateway's session key: a conversation is the caller's own, whatever id another principal sends. */
const gatewaySession = (principalId: string, conversation: string) => `occ:${principalId}:${conversation}`;

const newConversation = () => randomBytes(12).toString('base64url');

function frame(data: AgentMessageEvent): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

const notRunning = (message: string) => new OccError('AGENT_NOT_RUNNING', message);

async function activeRevision(deps: ControllerDeps, namespaceId: string, agentId: string): Promise<AgentRevision> {
  const { agent, revision, deployed } = await deps.state.read(async (uow) => {
    const found = await uow.agents.get(namespaceId, agentId);
    if (!found) throw notFound('Agent');
    if (found.activeRevisionId) return { agent: found, revision: await uow.revisions.get(namespaceId, agentId, found.activeRevisionId), deployed: true };
    return { agent: found, revision: null, deployed: (await uow.revisions.scan(namespaceId, agentId, { limit: 1 })).length > 0 };
  });
  if (revision) return revision;
  if (!deployed) throw notRunning('The Agent has never been deployed: deploy it, then send the message.');
  if (agent.desiredState === 'stopped') throw notRunning('The Agent is stopped (no active revision): deploy it, then send the message again.');
  throw notRunning('The Agent is not running yet: no revision of it has become active (its deploy is under way or failed; see its deployment status).');
}

const KEEP_ALIVE = Symbol('keep-alive');

/**
 * The source's items, and KEEP_ALIVE whenever `everyMs` passes without one; throws once `signal`
 * aborts, even if the source does not notice it.
 */
async function* withKeepAlive<T>(source: AsyncIterable<T>, everyMs: number, signal: AbortSignal): AsyncGenerator<T | typeof KEEP_ALIVE> {
  const iterator = source[Symbol.asyncIterator]();
  let pending = iterator.next();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const beat = new Promise<typeof KEEP_ALIVE>((resolve) => (timer = setTimeout(() => resolve(KEEP_ALIVE), everyMs)));
      const next = await Promise.race([pending, beat, aborted]).finally(() => clearTimeout(timer));
      if (next === KEEP_ALIVE) {
        yield KEEP_ALIVE;
        continue;
      }
      if (next.done) return;
      pending = iterator.next();
      yield next.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Ends the driver's read (its connection to the gateway) when the client or a bound ends ours.
    void iterator.return?.().catch(() => {});
    void pending.catch(() => {});
  }
}

type RelayEnd = 'timeout' | 'client';

async function* replyFrames(
  start: AgentMessageEvent,
  chunks: AsyncIterable<GatewayReplyChunk>,
  relay: AbortController,
  ended: () => RelayEnd | null,
  bounds: ReplyStreamBounds,
): AsyncGenerator<string> {
  let chars = 0;
  const failure = (code: NonNullable<AgentMessageEvent['code']>, message: string) => frame({ type: 'error', code, message });
  try {
    yield frame(start);
    for await (const chunk of withKeepAlive(chunks, bounds.keepAliveMs, relay.signal)) {
      if (chunk === KEEP_ALIVE) {
        yield ': keep-alive\n\n';
        continue;
      }
      if (chunk.kind === 'done') {
        yield frame({ type: 'done', ...(chunk.finishReason ? { finishReason: chunk.finishReason.slice(0, 64) } : {}) });
        return;
      }
      if (chunk.kind === 'failed') {
        yield failure('AGENT_REPLY_FAILED', chunk.reason);
        return;
      }
      chars += chunk.text.length;
      if (chars > bounds.maxChars) {
        yield failure('AGENT_REPLY_TOO_LARGE', `The reply passed ${bounds.maxChars} characters; OCC ended it.`);
        return;
      }
      yield frame({ type: 'reply', text: chunk.text });
    }
    yield failure('AGENT_REPLY_FAILED', 'The gateway ended the reply before it was complete.');
  } catch {
    if (ended() === 'client') return;
    if (ended() === 'timeout') yield failure('AGENT_REPLY_TIMEOUT', `The reply took longer than ${Math.round(bounds.maxMs / 1000)} s; OCC ended it.`);
    else yield failure('AGENT_GATEWAY_UNAVAILABLE', "The connection to the Agent's gateway failed during the reply.");
  } finally {
    relay.abort();
  }
}

/**
 * Opens the relay: every refusal is an error before the stream; the answer is the stream's
 * frames (already SSE-encoded). `signal` aborts when the client goes away.
 */
export async function openAgentMessage(
  deps: ControllerDeps,
  caller: Caller,
  namespaceId: string,
  agentId: string,
  body: AgentMessageBody,
  signal: AbortSignal,
  bounds: ReplyStreamBounds = DEFAULT_REPLY_BOUNDS,
): Promise<AsyncIterable<string>> {
  const revision = await activeRevision(deps, namespaceId, agentId);
  const compute = deps.compute;
  if (!compute?.sendMessage) throw new OccError('NOT_IMPLEMENTED', `The ComputeDriver${compute ? ` "${compute.id}"` : ''} cannot relay messages to an Agent's gateway.`);
  if (revision.computeDriverId !== compute.id) {
    throw notRunning(`Revision ${revision.revision} runs on the ComputeDriver "${revision.computeDriverId}", which this OCC does not drive: deploy the Agent again.`);
  }
  if (!chatEndpointEnabled(revision.configuration.values)) {
    throw conflict(
      `Revision ${revision.revision}'s Configuration does not turn on the gateway's chat endpoint: set gateway.http.endpoints.chatCompletions.enabled to true, then deploy.`,
    );
  }
  const conversation = body.conversation ?? newConversation();

  let end: RelayEnd | null = null;
  const relay = new AbortController();
  const timer = setTimeout(() => {
    end ??= 'timeout';
    relay.abort();
  }, bounds.maxMs);
  timer.unref();
  const onClientGone = () => {
    end ??= 'client';
    relay.abort();
  };
  if (signal.aborted) onClientGone();
  else signal.addEventListener('abort', onClientGone, { once: true });
  relay.signal.addEventListener(
    'abort',
    () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onClientGone);
    },
    { once: true },
  );

  try {
    const reply = await compute.sendMessage({ namespaceId, agentId }, revision.id, { text: body.text, session: gatewaySession(caller.principalId, conversation) }, relay.signal);
    if (reply.kind === 'not-serving') throw notRunning(`Revision ${revision.revision} is active but its runtime is not serving now: ${reply.state}.`);
    if (reply.kind === 'unavailable') throw new OccError('AGENT_GATEWAY_UNAVAILABLE', reply.reason);
    await deps.state.transact((uow) =>
      recordAudit(uow, caller, {
        action: 'agents.message',
        namespaceId,
        resource: { kind: 'agent', id: agentId },
        details: { revisionId: revision.id, revision: revision.revision, conversation, characters: body.text.length },
      }),
    );
    return replyFrames({ type: 'accepted', conversation, revisionId: revision.id }, reply.chunks, relay, () => end, bounds);
  } catch (error) {
    relay.abort();
    if (error instanceof OccError) throw error;
    if (end === 'timeout') throw new OccError('AGENT_GATEWAY_UNAVAILABLE', "The Agent's gateway did not accept the message in time.");
    throw error;
  }
}
