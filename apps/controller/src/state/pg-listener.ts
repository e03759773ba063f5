import pg from 'pg';

const PLAIN_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const RECONNECT_MS = 1_000;

/**
 * LISTEN on a connection of its own (a pooled one would be handed to other queries). When the
 * connection is lost (a restarted server) it reconnects every second until stopped; after each
 * (re)connection it calls `onNotify` once, since notifications sent meanwhile are gone.
 */
export async function listenOnOwnConnection(config: pg.ClientConfig, channel: string, onNotify: () => void): Promise<() => Promise<void>> {
  if (!PLAIN_IDENTIFIER.test(channel)) throw new Error('channel must be a plain lowercase identifier');
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    retry = null;
    if (stopped) return;
    const c = new pg.Client(config);
    client = c;
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      c.removeAllListeners('notification');
      void c.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void connect(), RECONNECT_MS);
    };
    // An 'error' or 'end' on an idle LISTEN connection must not crash the process.
    c.on('error', onLost);
    c.on('end', onLost);
    c.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch {
      onLost();
      return;
    }
    if (!stopped) onNotify();
  };

  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    if (c) {
      c.removeAllListeners('notification');
      await c.end().catch(() => {});
    }
  };
}
