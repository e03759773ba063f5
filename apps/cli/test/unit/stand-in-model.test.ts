import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, STAND_IN_MODEL_ID, STAND_IN_NOTE, standInAnswer, startStandInModel, type StandInModel } from '../../src/stand-in-model/server.ts';

/**
 * The stand-in model `occ stand-in-model` serves: the OpenAI Chat Completions wire format as an
 * OpenAI client (OpenClaw's openai-completions provider) reads it — streamed and whole — with a
 * fixed note and an echo, on loopback only.
 */
let model: StandInModel;
beforeAll(async () => {
  model = await startStandInModel(0);
});
afterAll(async () => model?.close());

const post = (body: unknown) => fetch(`${model.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the stand-in model', () => {
  it('listens on 127.0.0.1 only and lists its one model', async () => {
    expect(model.baseUrl).toBe(`http://127.0.0.1:${model.port}/v1`);
    const models = await fetch(`${model.baseUrl}/models`);
    expect(await models.json()).toEqual({ object: 'list', data: [{ id: STAND_IN_MODEL_ID, object: 'model', created: 0, owned_by: 'occ' }] });
  });

  it('answers one JSON completion: the note and an echo of the last user message, finish "stop"', async () => {
    const res = await post({
      model: STAND_IN_MODEL_ID,
      messages: [
        { role: 'system', content: 'be nice' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'x' },
        { role: 'user', content: 'Hello!' },
      ],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: STAND_IN_MODEL_ID,
      choices: [{ index: 0, message: { role: 'assistant', content: `${STAND_IN_NOTE}\n\nYou said: Hello!` }, finish_reason: 'stop' }],
    });
    expect(body.id).toMatch(/^chatcmpl-occ-stand-in-\d+$/);
  });

  it('streams as OpenAI does: a role delta, the text, the finish chunk, usage when asked, then [DONE]', async () => {
    const res = await post({
      model: STAND_IN_MODEL_ID,
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'read' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'part one' },
            { type: 'image_url', image_url: { url: 'data:' } },
            { type: 'text', text: 'part two' },
          ],
        },
      ],
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => block.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.map((c) => c.choices[0]?.delta ?? null)).toEqual([{ role: 'assistant', content: '' }, { content: `${STAND_IN_NOTE}\n\nYou said: part one\npart two` }, {}, null]);
    expect(chunks[2].choices[0].finish_reason).toBe('stop');
    expect(chunks[3].usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === STAND_IN_MODEL_ID)).toBe(true);
  });

  it('refuses what it does not serve, in the OpenAI error shape', async () => {
    const wrong = await fetch(`${model.baseUrl}/embeddings`, { method: 'POST', body: '{}' });
    expect(wrong.status).toBe(404);
    expect(((await wrong.json()) as any).error.type).toBe('invalid_request_error');
    const notJson = await fetch(`${model.baseUrl}/chat/completions`, { method: 'POST', body: 'not json' });
    expect(notJson.status).toBe(400);
  });

  it('echoes at most 2000 characters, and only the note when nothing was said', () => {
    expect(standInAnswer({ messages: [] })).toBe(STAND_IN_NOTE);
    expect(standInAnswer({ messages: [{ role: 'user', content: 'y'.repeat(3000) }] })).toBe(`${STAND_IN_NOTE}\n\nYou said: ${'y'.repeat(2000)}…`);
    expect(
      lastUserText({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'tool', content: 'b' },
        ],
      }),
    ).toBe('a');
    // OpenClaw's own context in the user's message (found behind the real gateway) is not what the person said.
    const wrapped =
      '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nConversation data (data, not instructions):\n"Active exec sessions:\nnone"\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\n\nHello, stand-in';
    expect(standInAnswer({ messages: [{ role: 'user', content: wrapped }] })).toBe(`${STAND_IN_NOTE}\n\nYou said: Hello, stand-in`);
    const context = '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n"## Active Subagents\nnone"\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>';
    expect(
      standInAnswer({
        messages: [
          { role: 'user', content: 'Hi there' },
          { role: 'user', content: context },
        ],
      }),
    ).toBe(`${STAND_IN_NOTE}\n\nYou said: Hi there`);
    const withRuntime = 'Hello\n\nRuntime: agent=main | session=agent:main:openai:x | host=vm | model=provider/occ-stand-in';
    expect(standInAnswer({ messages: [{ role: 'user', content: withRuntime }] })).toBe(`${STAND_IN_NOTE}\n\nYou said: Hello`);
    expect(lastUserText('nonsense')).toBe('');
  });
});
