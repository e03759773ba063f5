import { Option, type Command } from 'commander';
import { OCC_VERSION, type ServerVersion } from '@occ/contracts';
import { action, type CommandContext } from '../command-context.ts';
import { isDataFormat } from '../output/output-format.ts';
import { note, printDocument } from '../output/render.ts';
import { example } from '../program.ts';

interface Versions {
  clientVersion: { version: string; node: string };
  serverVersion?: ServerVersion & { server: string };
}

function print(versions: Versions, options: CommandContext['options']): void {
  if (isDataFormat(options.output) || options.output === 'name') return printDocument(versions, options);
  const { clientVersion: client, serverVersion: server } = versions;
  if (options.quiet) return void process.stdout.write(`${client.version}\n${server ? `${server.version}\n` : ''}`);
  process.stdout.write(`Client Version: ${client.version} (Node.js ${client.node})\n`);
  if (server) process.stdout.write(`Server Version: ${server.version} (Node.js ${server.node}, database schema ${server.schemaVersion}) at ${server.server}\n`);
}

/** `occ version`: this occ's release, and the server's from `GET /version` (any valid key may read it). */
export function registerVersionCommand(program: Command): void {
  example(
    program
      .command('version')
      .description("Print this occ's version and the server's (GET /version, which any valid key may read).")
      .addOption(new Option('--client', "only this occ's version: no server is asked")),
    'occ version',
    'occ version --client -o json',
  ).action(
    action<{ client?: boolean }>(async (context, _args, flags) => {
      const versions: Versions = { clientVersion: { version: OCC_VERSION, node: process.version } };
      if (flags.client) return print(versions, context.options);
      let server: ServerVersion;
      try {
        server = (await context.connection.client.call('getVersion', {})).data;
      } catch (error) {
        // The client's own version is worth having even when no server answers; the error follows.
        print(versions, context.options);
        throw error;
      }
      print({ ...versions, serverVersion: { ...server, server: context.connection.client.server } }, context.options);
      if (server.version !== OCC_VERSION)
        note(`This occ is ${OCC_VERSION} and the server runs ${server.version}: a command either side does not know may be refused.`, context.options);
    }),
  );
}
