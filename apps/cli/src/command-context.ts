import type { Command } from 'commander';
import { connect, type Connection, type GlobalOptions } from './context/connection.ts';
import { namespaceId } from './context/resolve.ts';

/** What a command's action works with: the global flags, the connection and the Namespace. */
export interface CommandContext {
  options: GlobalOptions;
  connection: Connection;
  /** The Namespace id from `-n` (name or id) or the context's default. */
  namespace(): Promise<string>;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing (an `async` function without `return`) is the common case
type Handler<O> = (context: CommandContext, args: string[], options: O) => Promise<number | void>;

/**
 * Wraps a command's action: commander passes `(...args, options, command)`; the handler gets a
 * connected context. Its return value is the exit code (errors are mapped in main.ts).
 */
export function action<O = Record<string, never>>(handler: Handler<O>) {
  return async (...raw: unknown[]): Promise<void> => {
    const command = raw.at(-1) as Command;
    const options = command.optsWithGlobals() as GlobalOptions & O;
    const args = raw.slice(0, -2).flatMap((arg) => (Array.isArray(arg) ? arg : arg === undefined ? [] : [arg])) as string[];
    let connection: Connection | undefined;
    let ns: Promise<string> | undefined;
    const context: CommandContext = {
      options,
      get connection() {
        return (connection ??= connect(options));
      },
      namespace() {
        const conn = context.connection;
        return (ns ??= namespaceId(conn.client, options.namespace ?? conn.defaultNamespace));
      },
    };
    const code = await handler(context, args, options);
    if (typeof code === 'number' && code !== 0) process.exitCode = code;
  };
}
