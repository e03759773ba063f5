import { createInterface } from 'node:readline';
import { Option, type Command } from 'commander';
import { CONVERSATION_PATTERN } from '@occ/contracts';
import { action, type CommandContext } from '../command-context.ts';
import { sendMessage, type SentMessage } from '../chat/send-message.ts';
import { agentId } from '../context/resolve.ts';
import { EXIT_INTERRUPTED, untilInterrupted } from '../deploy/interrupt.ts';
import { CliError, describeError, EXIT, exitCodeOf } from '../exit-codes.ts';
import { readStdin } from '../input/read-input.ts';
import { isDataFormat } from '../output/output-format.ts';
import { note, printDocument } from '../output/render.ts';
import { example } from '../program.ts';

interface ChatFlags {
  conversation?: string;
}

function checkConversation(id: string | undefined): string | undefined {
  if (id !== undefined && !new RegExp(CONVERSATION_PATTERN).test(id))
    throw new CliError(`--conversation is an id of letters, digits, _ and - (1–64); got ${JSON.stringify(id)}`, EXIT.USAGE);
  return id;
}

/** A command to type next, with the `-n` the person gave so it works as printed. */
const withNamespace = (context: CommandContext, command: string) => (context.options.namespace ? `${command} -n ${context.options.namespace}` : command);

const isAbort = (error: unknown) => (error as Error)?.name === 'AbortError';

/** `occ send AGENT "text"`: one message; the reply is printed as it streams (or as one document with -o json|yaml). */
async function send(context: CommandContext, ref: string, textArg: string | undefined, flags: ChatFlags): Promise<number> {
  const { options } = context;
  const conversation = checkConversation(flags.conversation);
  const text = textArg === undefined || textArg === '-' ? (process.stdin.isTTY ? '' : (await readStdin()).replace(/\r?\n$/, '')) : textArg;
  if (text.trim() === '') throw new CliError('No message: give it as an argument (occ send AGENT "text") or pipe it on standard input', EXIT.USAGE);
  const client = context.connection.client;
  const ns = await context.namespace();
  const id = await agentId(client, ns, ref);
  const document = isDataFormat(options.output);
  let printed = '';
  const onText = document
    ? undefined
    : (piece: string) => {
        printed += piece;
        process.stdout.write(piece);
      };
  let sent: SentMessage;
  try {
    sent = await untilInterrupted((signal) => sendMessage(client, { ns, agentId: id, text, conversation, signal, ...(onText ? { onText } : {}) }));
  } catch (error) {
    if (printed && !printed.endsWith('\n')) process.stdout.write('\n');
    if (isAbort(error)) {
      process.stderr.write("Stopped: the Agent's turn was cancelled.\n");
      return EXIT_INTERRUPTED;
    }
    throw error;
  }
  if (document) {
    printDocument(sent, options);
    return EXIT.OK;
  }
  if (!sent.reply.endsWith('\n')) process.stdout.write('\n');
  note(`Conversation ${sent.conversation}: go on with ${withNamespace(context, `occ send ${ref} --conversation ${sent.conversation} "…"`)}`, options);
  return EXIT.OK;
}

/**
 * `occ chat AGENT`: line by line, one conversation. On a terminal: a prompt, the reply streamed
 * after the Agent's name, errors shown and the chat going on; Ctrl-C stops a reply (the Agent's
 * turn is cancelled), Ctrl-C at the prompt, Ctrl-D or /exit ends. Not on a terminal: each line of
 * standard input is one message, each reply one block; the first error ends it with its exit code.
 */
async function chat(context: CommandContext, ref: string, flags: ChatFlags): Promise<number> {
  const { options } = context;
  let conversation = checkConversation(flags.conversation);
  const client = context.connection.client;
  const ns = await context.namespace();
  const id = await agentId(client, ns, ref);
  const tty = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const lines = createInterface({ input: process.stdin, ...(tty ? { output: process.stdout, terminal: true } : { terminal: false }) });
  lines.setPrompt('you> ');
  let replying: AbortController | null = null;
  let interrupted = false;
  lines.on('SIGINT', () => {
    if (replying) return void replying.abort();
    interrupted = true;
    lines.close();
  });
  if (tty) {
    note(`Talking to ${ref} through OCC. Type a message and press Enter; /exit, Ctrl-D or Ctrl-C at the prompt ends.`, options);
    lines.prompt();
  }
  try {
    for await (const line of lines) {
      const text = line.trim();
      if (text === '/exit' || text === '/quit') break;
      if (text === '') {
        if (tty) lines.prompt();
        continue;
      }
      replying = new AbortController();
      let printed = '';
      if (tty) process.stdout.write(`${ref}> `);
      try {
        const sent = await sendMessage(client, {
          ns,
          agentId: id,
          text,
          conversation,
          signal: replying.signal,
          onText: (piece) => {
            printed += piece;
            process.stdout.write(piece);
          },
        });
        conversation = sent.conversation;
        if (!printed.endsWith('\n')) process.stdout.write('\n');
      } catch (error) {
        if (printed && !printed.endsWith('\n')) process.stdout.write('\n');
        else if (tty && !printed) process.stdout.write('\n');
        if (isAbort(error)) process.stderr.write("(stopped: the Agent's turn was cancelled)\n");
        else if (tty) process.stderr.write(`${describeError(error)}\n`);
        else {
          process.stderr.write(`${describeError(error)}\n`);
          return exitCodeOf(error);
        }
      } finally {
        replying = null;
      }
      if (tty) lines.prompt();
    }
  } finally {
    lines.close();
  }
  if (tty) process.stdout.write('\n');
  if (conversation) note(`Conversation ${conversation}: go on with ${withNamespace(context, `occ chat ${ref} --conversation ${conversation}`)}`, options);
  return interrupted ? EXIT_INTERRUPTED : EXIT.OK;
}

export function registerChatCommands(program: Command): void {
  const conversationOption = () => new Option('--conversation <id>', 'go on with this conversation (the id an earlier send or chat printed); default: a new one');
  example(
    program
      .command('send')
      .argument('<agent>', 'name or id')
      .argument('[text]', 'the message; - or none: read it from standard input')
      .description(
        'Send one message to a running Agent through OCC and print its reply as it streams (needs agent:message). Exit 5 when the Agent is not running, 1 when the reply fails.',
      )
      .addOption(conversationOption()),
    'occ send support-bot "Which tools can you use?"',
    'echo "Summarize the last deploy" | occ send support-bot -',
    'occ send support-bot "And now?" --conversation 3hVq0c2mXyZ8rN1a',
  ).action(action<ChatFlags>(async (context, [ref, text], flags) => send(context, ref!, text, flags)));

  example(
    program
      .command('chat')
      .argument('<agent>', 'name or id')
      .description(
        'Talk to a running Agent through OCC, line by line, in one conversation (needs agent:message). On a terminal: a prompt and the replies as they stream; /exit or Ctrl-D ends.',
      )
      .addOption(conversationOption()),
    'occ chat support-bot',
    'printf "hello\\nwhat can you do?\\n" | occ chat support-bot',
  ).action(action<ChatFlags>(async (context, [ref], flags) => chat(context, ref!, flags)));
}
