import { InvalidArgumentError, Option, type Command } from 'commander';
import { STAND_IN_MODEL_ID, startStandInModel } from '../stand-in-model/server.ts';
import { example } from '../program.ts';

/** The stand-in's default port: next to OCC's 8080, and the one docs/quickstart.md names. */
const STAND_IN_DEFAULT_PORT = 8081;

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('a port from 0 to 65535 (0: any free port)');
  return port;
}

/** What to tell a person once it listens: where it is, and the two settings that use it. */
function standInBanner(baseUrl: string, port: number): string {
  return `OCC's stand-in model (NOT a language model) is listening on ${baseUrl}
It answers every message with a fixed note and an echo of what was said; it calls no tool.
Use it as an OpenAI-compatible provider (docs/quickstart.md, "No model provider?"):
  start OCC with OCC_LOCAL_SHARED_LOOPBACK_PORTS=${port} so a confined Agent may reach it,
  and in the Configuration: baseUrl "${baseUrl}", api openai-completions, model "${STAND_IN_MODEL_ID}".
Ctrl-C stops it.
`;
}

/** `occ stand-in-model`: runs until SIGINT or SIGTERM. */
export function registerStandInModelCommand(program: Command): void {
  example(
    program
      .command('stand-in-model')
      .description(
        "Serve OCC's stand-in model on 127.0.0.1: an OpenAI Chat Completions endpoint that is NOT a language model — it answers every message with a fixed note and an echo, so the quickstart can be finished without a model provider.",
      )
      .addOption(new Option('--port <port>', 'the port on 127.0.0.1 (0: any free port)').argParser(parsePort).default(STAND_IN_DEFAULT_PORT)),
    'occ stand-in-model',
    'occ stand-in-model --port 0',
  ).action(async (flags: { port: number }) => {
    const model = await startStandInModel(flags.port);
    process.stdout.write(standInBanner(model.baseUrl, model.port));
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await model.close();
  });
}
