/**
 * Writers of one key take turns within this process, in arrival order, and each may hand the
 * next one the value it wrote: a writer queued behind another then starts from that value
 * instead of reading it again. A hand-over lives only while writers are queued for the key.
 * Callers must treat it as a hint their write verifies (e.g. a version compare-and-set):
 * another process may have written since.
 */
export class KeyedTurns<V> {
  private readonly lines = new Map<string, { tail: Promise<void>; handedOver: V | undefined }>();

  async run<T>(key: string, fn: (turn: { handedOver: V | undefined; handOver(value: V): void }) => Promise<T>): Promise<T> {
    let line = this.lines.get(key);
    if (!line) {
      line = { tail: Promise.resolve(), handedOver: undefined };
      this.lines.set(key, line);
    }
    const previous = line.tail;
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => done);
    line.tail = tail;
    const mine = line;
    try {
      await previous;
      return await fn({ handedOver: mine.handedOver, handOver: (value) => void (mine.handedOver = value) });
    } finally {
      release();
      // The last in line leaves nothing behind.
      if (mine.tail === tail) this.lines.delete(key);
    }
  }

  /** Keys with a writer running or waiting. */
  get size(): number {
    return this.lines.size;
  }
}
