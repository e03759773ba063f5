import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema } from '../common.ts';

/**
 * `POST /namespaces/:ns/agents/:id/messages`: one message relayed to the Agent's running gateway
 * (its OpenAI-compatible chat endpoint), the reply streamed back as Server-Sent Events. The
 * gateway's token never leaves the controller; the message text is not stored or audited.
 */

/** The longest message accepted (characters). */
export const AGENT_MESSAGE_MAX_CHARS = 16_000;
/** A conversation id: chosen by the client, or made by the server and returned. */
export const CONVERSATION_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
/** How long one reply may stream before the server ends it with `AGENT_REPLY_TIMEOUT`. */
export const AGENT_REPLY_MAX_MS = 10 * 60_000;
/** The most reply text one message streams (characters); more ends it with `AGENT_REPLY_TOO_LARGE`. */
export const AGENT_REPLY_MAX_CHARS = 1_000_000;
/** A `: keep-alive` comment this often while the Agent thinks, so proxies keep the stream open. */
export const AGENT_REPLY_KEEPALIVE_MS = 15_000;

export const AgentMessageBodySchema = Closed({
  /** What the person says; never stored, logged or audited by OCC. */
  text: Type.String({ minLength: 1, maxLength: AGENT_MESSAGE_MAX_CHARS }),
  /**
   * Continue this conversation (the id an earlier answer's `accepted` event named). Absent: a new
   * one. A conversation is the caller's own: another principal using the same id starts its own.
   */
  conversation: Type.Optional(Type.String({ pattern: CONVERSATION_PATTERN })),
});
export type AgentMessageBody = Static<typeof AgentMessageBodySchema>;

/** Codes of an `error` event: the reply failed after the stream had started. */
export const AGENT_REPLY_ERROR_CODES = ['AGENT_REPLY_FAILED', 'AGENT_REPLY_TIMEOUT', 'AGENT_REPLY_TOO_LARGE', 'AGENT_GATEWAY_UNAVAILABLE'] as const;
export type AgentReplyErrorCode = (typeof AGENT_REPLY_ERROR_CODES)[number];
export const AGENT_MESSAGE_EVENT_TYPES = ['accepted', 'reply', 'done', 'error'] as const;
export type AgentMessageEventType = (typeof AGENT_MESSAGE_EVENT_TYPES)[number];

/**
 * The JSON `data:` of one event of the reply stream (`event:` repeats `type`):
 * - `accepted`: first, once the message was handed to the gateway: the conversation to continue
 *   and the revision that answers.
 * - `reply`: the next piece of the reply's text, in order (concatenate them).
 * - `done`: the reply is complete (`finishReason` as the gateway said); the stream ends.
 * - `error`: the reply failed after the stream started (`code`, fixed `message`); the stream ends.
 */
export const AgentMessageEventSchema = Closed(
  {
    type: Type.Union(AGENT_MESSAGE_EVENT_TYPES.map((t) => Type.Literal(t))),
    conversation: Type.Optional(Type.String({ pattern: CONVERSATION_PATTERN })),
    revisionId: Type.Optional(IdSchema('agent_revision')),
    text: Type.Optional(Type.String()),
    finishReason: Type.Optional(Type.String({ maxLength: 64 })),
    code: Type.Optional(Type.Union(AGENT_REPLY_ERROR_CODES.map((c) => Type.Literal(c)))),
    message: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { description: 'One Server-Sent Event of a reply: `event:` (= `type`) and this JSON as `data:`.' },
);
export type AgentMessageEvent = Static<typeof AgentMessageEventSchema>;
