// What an Agent's shell could open: run inside its container (`docker exec` with the image's own
// Node), one TCP connect per `host:port`, each answered CONNECTED or how it failed (ECONNREFUSED,
// EHOSTUNREACH, TIMEOUT …), as one JSON object on stdout. Only addresses of this machine are
// ever given: its loopback, its own addresses, and containers on its own bridges.
const SCRIPT = `const net = require('node:net');
const [timeout, ...targets] = process.argv.slice(1);
Promise.all(targets.map((target) => new Promise((resolve) => {
  const at = target.lastIndexOf(':');
  const socket = net.connect({ host: target.slice(0, at), port: Number(target.slice(at + 1)), timeout: Number(timeout) });
  const done = (outcome) => { socket.destroy(); resolve([target, outcome]); };
  socket.once('connect', () => done('CONNECTED'));
  socket.once('timeout', () => done('TIMEOUT'));
  socket.once('error', (error) => done(error.code ?? 'ERROR'));
}))).then((results) => console.log(JSON.stringify(Object.fromEntries(results))));`;

export function connectProbeCommand(node: string, targets: string[], timeoutMs = 3_000): string[] {
  return [node, '-e', SCRIPT, String(timeoutMs), ...targets];
}

/** The probe's answer: target → outcome. */
export function parseConnectProbe(output: string): Record<string, string> {
  const line = output.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`the connect probe printed no result: ${output}`);
  return JSON.parse(line) as Record<string, string>;
}
