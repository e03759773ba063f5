import { useEffect, useRef, useState } from 'preact/hooks';
import { AGENT_MESSAGE_MAX_CHARS, type AgentMessageEvent } from '@occ/contracts';
import { useConsole } from '../../app/console-context.ts';
import { routeHref } from '../../app/routes.ts';
import { ErrorMessage } from '../../ui/error-message.tsx';
import { Field, fieldAria } from '../../ui/field.tsx';
import type { AgentTabProps } from './agent-detail-page.tsx';

/** One exchange of the conversation shown: what was said, and the reply as it streamed. */
interface Exchange {
  id: number;
  said: string;
  reply: string;
  state: 'replying' | 'done' | 'failed' | 'stopped';
  /** Why the reply failed after it started (the stream's fixed words). */
  failure?: string;
}

const help = 'Enter sends; Shift+Enter starts a new line. The Agent answers with its tools and model; OCC keeps no copy of the conversation.';

/**
 * Talk to the Agent through OCC (`POST …/messages`, needs agent:message): the reply streams in
 * as the Agent writes it. One conversation per visit to the tab ("New conversation" starts
 * another). Keyboard only: the message field, Enter to send, Tab to Stop while it replies.
 */
export function ChatTab({ ns, agent }: AgentTabProps) {
  const { api } = useConsole();
  const [text, setText] = useState('');
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  const [conversation, setConversation] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const relay = useRef<AbortController | null>(null);
  const field = useRef<HTMLTextAreaElement>(null);
  const next = useRef(1);

  // Leaving the tab (or the Agent) ends a reply under way: the gateway cancels the turn.
  useEffect(() => () => relay.current?.abort(), [agent.id]);

  const update = (id: number, change: Partial<Exchange> | ((e: Exchange) => Partial<Exchange>)) =>
    // biome-ignore lint/nursery/noMisusedSpread: `change` is the object form in that branch (Biome does not narrow on typeof … === 'function')
    setExchanges((all) => all.map((e) => (e.id === id ? { ...e, ...(typeof change === 'function' ? change(e) : change) } : e)));

  async function send() {
    const said = text.trim();
    if (!said || busy) return;
    const id = next.current++;
    const controller = new AbortController();
    relay.current = controller;
    setBusy(true);
    setError(null);
    let started = false;
    try {
      const stream = api.stream('sendAgentMessage', { params: { ns, id: agent.id }, body: { text: said, ...(conversation ? { conversation } : {}) }, signal: controller.signal });
      for await (const { data } of stream as AsyncIterable<{ data: AgentMessageEvent }>) {
        if (data.type === 'accepted') {
          started = true;
          setText('');
          setExchanges((all) => [...all, { id, said, reply: '', state: 'replying' }]);
          if (data.conversation) setConversation(data.conversation);
        } else if (data.type === 'reply' && data.text) {
          const piece = data.text;
          update(id, (e) => ({ reply: e.reply + piece }));
        } else if (data.type === 'done') {
          update(id, { state: 'done' });
        } else if (data.type === 'error') {
          update(id, { state: 'failed', failure: `${data.message ?? 'The reply failed.'} (${data.code})` });
        }
      }
    } catch (caught) {
      if (controller.signal.aborted) {
        if (started) update(id, (e) => (e.state === 'replying' ? { state: 'stopped' } : {}));
      } else if (started) {
        update(id, { state: 'failed', failure: 'The connection to OCC broke during the reply.' });
      } else {
        setError(caught);
      }
    } finally {
      if (relay.current === controller) relay.current = null;
      setBusy(false);
      field.current?.focus();
    }
  }

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  const newConversation = () => {
    relay.current?.abort();
    setExchanges([]);
    setConversation(undefined);
    setError(null);
    field.current?.focus();
  };

  const last = exchanges.at(-1);
  return (
    <div class="chat">
      <h2>Chat</h2>
      {agent.activeRevisionId ? null : (
        <p class="notice">
          The Agent is not running: <a href={routeHref({ page: 'agent', ns, agentId: agent.id, tab: 'deployments' })}>deploy it</a> before you send it a message.
        </p>
      )}
      {exchanges.length > 0 ? (
        <ol class="chat-log" aria-label={`Conversation with ${agent.name}`}>
          {exchanges.map((e) => (
            <li key={e.id} class="chat-exchange">
              <p class="chat-said">
                <span class="chat-who">You</span> {e.said}
              </p>
              <div class={`chat-reply chat-reply-${e.state}`} aria-busy={e.state === 'replying' ? 'true' : undefined}>
                <span class="chat-who">{agent.name}</span> <span class="chat-text">{e.reply}</span>
                {e.state === 'replying' && e.reply === '' ? <span class="muted"> is thinking…</span> : null}
                {e.state === 'stopped' ? <span class="muted"> (stopped)</span> : null}
                {e.state === 'failed' ? <p class="field-error">{e.failure}</p> : null}
              </div>
            </li>
          ))}
        </ol>
      ) : null}
      {/* What a screen reader hears: the state of the latest reply, not every piece of it. */}
      <p role="status" class="small muted">
        {last?.state === 'replying'
          ? `${agent.name} is replying…`
          : last?.state === 'done'
            ? `${agent.name} replied.`
            : last?.state === 'failed'
              ? 'The reply failed.'
              : last?.state === 'stopped'
                ? 'Reply stopped.'
                : ''}
      </p>
      {error ? <ErrorMessage error={error} context="The message could not be sent" /> : null}
      <form
        class="chat-form"
        aria-label={`Message ${agent.name}`}
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <Field id="chat-message" label="Message" help={help}>
          <textarea
            {...fieldAria('chat-message', { help })}
            ref={field}
            rows={3}
            maxLength={AGENT_MESSAGE_MAX_CHARS}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
            onKeyDown={onKeyDown}
          />
        </Field>
        <div class="button-row">
          <button type="submit" class="button-primary" disabled={busy || text.trim() === ''}>
            {busy ? 'Sending…' : 'Send'}
          </button>
          {busy ? (
            <button type="button" onClick={() => relay.current?.abort()}>
              Stop
            </button>
          ) : null}
          {exchanges.length > 0 && !busy ? (
            <button type="button" class="button-quiet" onClick={newConversation}>
              New conversation
            </button>
          ) : null}
        </div>
      </form>
    </div>
  );
}
