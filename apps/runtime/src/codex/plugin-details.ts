import { AppServerError, type AppServerClient } from './app-server-client.ts';

/** Where one selected plugin is read from: a local marketplace file or a hosted marketplace. */
export interface PluginLocation {
  pluginName: string;
  marketplacePath?: string;
  remoteMarketplaceName?: string;
}

export interface DetailReadOptions {
  /** Reads in flight at once (the specification's four). */
  concurrency?: number;
  /** Tries per plugin, the first included. */
  attempts?: number;
  requestTimeoutMs?: number;
}

/** A failure worth another try on the same connection: the answer was late, or the server failed internally. */
function retryable(error: unknown): boolean {
  return error instanceof AppServerError && (error.kind === 'timeout' || (error.kind === 'rpc' && error.rpcCode === -32603));
}

/**
 * `plugin/read` for every selection, at most `concurrency` at a time, answers in selection
 * order. A batch drains (every read in it settles) before anything of it is retried; retries
 * are batched the same way. A failure that is not retryable, or still failing after `attempts`,
 * is thrown once the batch it belongs to has drained.
 */
export async function readCodexPluginDetails<Detail = unknown>(
  client: Pick<AppServerClient, 'request'>,
  selections: readonly PluginLocation[],
  options: DetailReadOptions = {},
): Promise<Detail[]> {
  const concurrency = options.concurrency ?? 4;
  const attempts = options.attempts ?? 2;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  const details = new Array<Detail>(selections.length);
  let due = selections.map((_, index) => index);
  for (let attempt = 1; due.length > 0; attempt++) {
    const again: number[] = [];
    for (let start = 0; start < due.length; start += concurrency) {
      const batch = due.slice(start, start + concurrency);
      const settled = await Promise.allSettled(
        batch.map((index) =>
          client.request<{ plugin: Detail }>('plugin/read', selections[index], options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }),
        ),
      );
      settled.forEach((outcome, position) => {
        const index = batch[position]!;
        if (outcome.status === 'fulfilled') details[index] = outcome.value.plugin;
        else if (attempt < attempts && retryable(outcome.reason)) again.push(index);
        else throw outcome.reason;
      });
    }
    due = again;
  }
  return details;
}
