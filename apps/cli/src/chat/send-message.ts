import type { AgentMessageEvent } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { CliError, EXIT } from '../exit-codes.ts';

/** One message's outcome: the reply as it was streamed, and the conversation to go on with. */
export interface SentMessage {
  conversation: string;
  revisionId: string;
  reply: string;
  finishReason: string | null;
}

export interface SendOptions {
  ns: string;
  agentId: string;
  text: string;
  conversation?: string | undefined;
  /** Each piece of the reply's text as it arrives. */
  onText?: (text: string) => void;
  signal?: AbortSignal;
}

/**
 * Sends one message through OCC (`POST …/agents/:id/messages`) and follows its reply stream to
 * `done`. A refusal before the stream is the API's error (exit codes as everywhere); a reply
 * that fails after it started is a CliError with the stream's code: exit 7 when the gateway's
 * connection broke, 1 otherwise. An abort (Ctrl-C) ends the relay: the gateway cancels the turn.
 */
export async function sendMessage(client: ApiClient, options: SendOptions): Promise<SentMessage> {
  const body = { text: options.text, ...(options.conversation ? { conversation: options.conversation } : {}) };
  const sent: SentMessage = { conversation: options.conversation ?? '', revisionId: '', reply: '', finishReason: null };
  const stream = client.stream('sendAgentMessage', { params: { ns: options.ns, id: options.agentId }, body, ...(options.signal ? { signal: options.signal } : {}) });
  for await (const { data } of stream as AsyncIterable<{ data: AgentMessageEvent }>) {
    if (data.type === 'accepted') {
      sent.conversation = data.conversation ?? sent.conversation;
      sent.revisionId = data.revisionId ?? '';
    } else if (data.type === 'reply' && data.text) {
      sent.reply += data.text;
      options.onText?.(data.text);
    } else if (data.type === 'done') {
      sent.finishReason = data.finishReason ?? null;
      return sent;
    } else if (data.type === 'error') {
      throw new CliError(data.message ?? 'The reply failed.', data.code === 'AGENT_GATEWAY_UNAVAILABLE' ? EXIT.UNREACHABLE : EXIT.ERROR, data.code);
    }
  }
  if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
  throw new CliError('The reply ended before it was complete.', EXIT.ERROR, 'AGENT_REPLY_FAILED');
}
