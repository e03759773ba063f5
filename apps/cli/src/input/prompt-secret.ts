import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** Asks on the terminal for a value without echoing it (an API key typed by hand). */
export function promptHidden(question: string): Promise<string> {
  process.stderr.write(question);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const reader = createInterface({ input: process.stdin, output: muted, terminal: true });
  return new Promise((resolve) => {
    reader.once('line', (line) => {
      reader.close();
      process.stderr.write('\n');
      resolve(line);
    });
  });
}
