import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OCC_BIN, startCliWorld, type CliWorld } from '../../../../test-support/cli-world.ts';
import { admit, newDeployTarget, waitTerminal } from '../../../../test-support/deploy-helpers.ts';
import { runInPty, type PtySession } from '../../../../test-support/pty.ts';
import { createScriptedCompute, scriptedReply } from '../../../../test-support/scripted-compute.ts';

/**
 * `occ send` and `occ chat` against a controller over HTTP whose scripted ComputeDriver answers
 * messages (`scripted reply: <text>`): what they print, read and exit with. The real gateway and
 * model: apps/cli/test/e2e/cli-flow.test.ts. And `occ stand-in-model` as a process.
 */
const CHAT_ON = { gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } } };

describe('occ send and occ chat', () => {
  let world: CliWorld;
  let bot: string;
  let idle: string;

  beforeAll(async () => {
    const compute = createScriptedCompute({
      reply: (message) =>
        message.text === 'fail please'
          ? {
              kind: 'replying',
              chunks: (async function* () {
                yield { kind: 'text' as const, text: 'half an ans' };
                yield { kind: 'failed' as const, reason: "The Agent's turn failed (server_error); its runtime log may say why." };
              })(),
            }
          : scriptedReply(['scripted reply: ', message.text]),
    });
    world = await startCliWorld({ worker: {}, compute });
    const target = await newDeployTarget(world.controller, { values: CHAT_ON });
    bot = (await world.controller.request({ method: 'GET', url: target.url })).body.data.name;
    expect((await waitTerminal(world.controller, target, (await admit(world.controller, target)).id)).state).toBe('succeeded');
    const never = await newDeployTarget(world.controller, { values: CHAT_ON });
    idle = (await world.controller.request({ method: 'GET', url: never.url })).body.data.name;
  });
  afterAll(async () => {
    await world?.close();
  });

  const conversations = async () =>
    (await world.controller.database.query<{ c: string }>("SELECT details->>'conversation' AS c FROM audit_events WHERE action = 'agents.message' ORDER BY seq")).rows.map(
      (r) => r.c,
    );

  it('send prints the reply as it streams, then how to go on with the conversation; --conversation goes on with it', async () => {
    const sent = await world.occ(['send', bot, 'hello there']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe('scripted reply: hello there\n');
    const conversation = (await conversations()).at(-1)!;
    expect(sent.stderr).toBe(`Conversation ${conversation}: go on with occ send ${bot} --conversation ${conversation} "…"\n`);
    const again = await world.occ(['send', bot, 'more', '--conversation', conversation, '-q']);
    expect(again).toMatchObject({ code: 0, stdout: 'scripted reply: more\n', stderr: '' });
    expect((await conversations()).at(-1)).toBe(conversation);
  });

  it('send -o json prints one document; the message may come from standard input', async () => {
    const json = await world.occ(['send', bot, '-', '-o', 'json'], { stdin: 'piped text\n' });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      conversation: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      revisionId: expect.stringMatching(/^rev_/),
      reply: 'scripted reply: piped text',
      finishReason: 'stop',
    });
  });

  it('chat reads standard input line by line, in one conversation, until /exit', async () => {
    const before = (await conversations()).length;
    const chat = await world.occ(['chat', bot], { stdin: 'one\n\ntwo\n/exit\nthree\n' });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toBe('scripted reply: one\nscripted reply: two\n');
    const used = (await conversations()).slice(before);
    expect(used).toHaveLength(2);
    expect(used[1]).toBe(used[0]);
    expect(chat.stderr).toBe(`Conversation ${used[0]}: go on with occ chat ${bot} --conversation ${used[0]}\n`);
  });

  it("chat on a terminal: a prompt, each reply after the Agent's name, errors shown and the chat going on, Ctrl-D ends", async () => {
    const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    const until = async (session: PtySession, pattern: RegExp) => {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(plain(session.output()))) {
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}:\n${session.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const env = { PATH: process.env.PATH, HOME: world.home, OCC_CONFIG: world.configFile, NO_COLOR: '1' };
    const pty = await runInPty([process.execPath, OCC_BIN, 'chat', bot], env, {
      timeoutMs: 60_000,
      interact: async (session) => {
        await until(session, /you> $/);
        session.type('hi there\r');
        await until(session, /scripted reply: hi there\r\nyou> $/);
        session.type('fail please\r');
        await until(session, /AGENT_REPLY_FAILED[^\n]*\r\nyou> $/);
        session.type('\u0004');
      },
    });
    expect(pty.code, pty.output).toBe(0);
    const text = plain(pty.output);
    expect(text).toContain(`Talking to ${bot} through OCC.`);
    expect(text).toContain(`${bot}> scripted reply: hi there`);
    expect(text).toContain(`${bot}> half an ans`);
    expect(text).toMatch(new RegExp(`Conversation [A-Za-z0-9_-]{16}: go on with occ chat ${bot} --conversation`));
  });

  it('shell completion offers the new verbs and their flag', async () => {
    const script = (await world.occ(['completion', 'bash'])).stdout;
    const complete = (words: string[]) =>
      spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _occ; echo "\${COMPREPLY[@]}"`], {
        encoding: 'utf8',
      }).stdout.trim();
    expect(complete(['occ', 'sen'])).toBe('send');
    expect(complete(['occ', 'cha'])).toBe('chat');
    expect(complete(['occ', 'stand'])).toBe('stand-in-model');
    expect(complete(['occ', 'send', 'bot', '--conv'])).toBe('--conversation');
    expect(complete(['occ', 'chat', 'bot', '--conv'])).toBe('--conversation');
  });

  it('exit codes: 5 when the Agent is not running, 1 when the reply fails midway (what came is printed), 2 without a message or with a bad conversation id', async () => {
    const notRunning = await world.occ(['send', idle, 'hello']);
    expect(notRunning.code).toBe(5);
    expect(notRunning.stderr).toMatch(/^error: AGENT_NOT_RUNNING: The Agent has never been deployed: deploy it, then send the message\.\n {2}\(request req_/);
    const failed = await world.occ(['send', bot, 'fail please']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('half an ans\n');
    expect(failed.stderr).toBe("error: AGENT_REPLY_FAILED: The Agent's turn failed (server_error); its runtime log may say why.\n");
    const chat = await world.occ(['chat', bot], { stdin: 'fail please\nnever sent\n' });
    expect(chat.code).toBe(1);
    expect(chat.stdout).toBe('half an ans\n');
    expect((await world.occ(['send', bot], { stdin: '\n' })).code).toBe(2);
    const badId = await world.occ(['send', bot, 'hi', '--conversation', 'no spaces']);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toBe('error: --conversation is an id of letters, digits, _ and - (1–64); got "no spaces"\n');
  });
});

describe('occ stand-in-model', () => {
  it('serves the Chat Completions wire format on 127.0.0.1 until SIGTERM, and says how to use it', async () => {
    const child = spawn(process.execPath, [OCC_BIN, 'stand-in-model', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const baseUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 20_000);
        child.stdout.on('data', () => {
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      const port = new URL(baseUrl).port;
      expect(out).toContain(`start OCC with OCC_LOCAL_SHARED_LOOPBACK_PORTS=${port}`);
      expect(out).toContain('model "occ-stand-in"');
      const res = await fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'occ-stand-in', messages: [{ role: 'user', content: 'ping' }] }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).choices[0].message.content).toMatch(/stand-in model, not a language model[\s\S]*You said: ping$/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
