const MAX_BYTES = 1024 * 1024;

/** One container start's combined stdout and stderr, bounded to its last MiB. */
export class LogBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > MAX_BYTES && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }

  /** The text as pods/log answers it: the last `tailLines` lines, then at most `limitBytes` bytes. */
  text(options: { tailLines?: number; limitBytes?: number } = {}): string {
    let text = Buffer.concat(this.chunks).subarray(-MAX_BYTES).toString('utf8');
    if (options.tailLines !== undefined && options.tailLines >= 0) {
      const lines = text.split('\n');
      const complete = lines[lines.length - 1] === '' ? lines.slice(0, -1) : lines;
      text = options.tailLines === 0 ? '' : complete.slice(-options.tailLines).join('\n') + (text.endsWith('\n') ? '\n' : '');
    }
    if (options.limitBytes !== undefined && options.limitBytes > 0) text = Buffer.from(text).subarray(0, options.limitBytes).toString('utf8');
    return text;
  }
}
