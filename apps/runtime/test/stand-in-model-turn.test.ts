import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAND_IN_MODEL_ID, STAND_IN_NOTE, startStandInModel, type StandInModel } from '../../cli/src/stand-in-model/server.ts';
import { sendMessage } from '../../../test-support/scripted-agent-turn.ts';
import { startRuntime, type RunningRuntime } from './support/runtime-process.ts';

// `occ stand-in-model` behind the real OpenClaw gateway, configured exactly as docs/quickstart.md
// step 3 writes the Configuration (MODEL_BASE_URL, MODEL_ID=occ-stand-in, MODEL_API_KEY=none as a
// delivered Secret): a newcomer without a model provider gets an answer, and it says it is the
// stand-in. Its own wire-format tests: apps/cli/test/unit/stand-in-model.test.ts.
let model: StandInModel;
let runtime: RunningRuntime;

beforeAll(async () => {
  model = await startStandInModel(0);
  runtime = await startRuntime({
    selections: {},
    configuration: {
      gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } },
      agents: { defaults: { model: { primary: `provider/${STAND_IN_MODEL_ID}` } } },
      models: {
        mode: 'merge',
        providers: {
          provider: {
            baseUrl: model.baseUrl,
            api: 'openai-completions',
            apiKey: { source: 'env', provider: 'default', id: 'MODEL_API_KEY' },
            models: [
              {
                id: STAND_IN_MODEL_ID,
                name: STAND_IN_MODEL_ID,
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
    },
    secrets: { MODEL_API_KEY: 'none' },
  });
}, 120_000);
afterAll(async () => {
  await runtime?.dispose();
  await model?.close();
});

describe("the quickstart's stand-in model behind a real gateway", () => {
  it('answers a message through the gateway with its note and the echo', async () => {
    const status = await runtime.settled(300_000);
    expect(status).toMatchObject({ phase: 'ready', error: null });
    const answer = await sendMessage({ port: status.gatewayPort!, token: runtime.gatewayToken }, 'Hello, stand-in', 240_000);
    expect(answer.status).toBe(200);
    const content = (answer.body as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
    expect(content).toContain(STAND_IN_NOTE);
    // OpenClaw hands the model the person's message with its time in front; its own context blocks are not echoed.
    expect(content, JSON.stringify(content)).toMatch(/\n\nYou said: (\[[^\]]+\] )?Hello, stand-in$/);
    expect(content).not.toContain('OPENCLAW_INTERNAL_CONTEXT');
  }, 560_000);
});
