// Several reads of the running gateway in ONE process, through the function `openclaw gateway
// call` itself uses (`callGatewayFromCli`, from the public `openclaw/plugin-sdk/gateway-runtime`
// subpath): each OpenClaw process costs seconds of module loading, and the runtime reads three
// methods after every gateway start (gateway-readback.ts). Plain JavaScript, run by the pinned Node
// without a loader.
//
//   node gateway-reads.mjs <gateway-runtime.js> <port> <timeoutMs> '<{"method": params, …}>'
//
// The gateway token comes from OPENCLAW_GATEWAY_TOKEN (never argv). Prints one JSON object:
// each method → {"answered": true, "value": …} or {"answered": false} (no answer: not yet serving,
// a timeout, a refusal — the caller asks again).
import { pathToFileURL } from 'node:url';

const [sdkPath, port, timeoutMs, requested] = process.argv.slice(2);
const { callGatewayFromCli } = await import(pathToFileURL(sdkPath).href);
const methods = Object.entries(JSON.parse(requested));
const options = { port, token: process.env.OPENCLAW_GATEWAY_TOKEN, timeout: timeoutMs, json: true };
const answers = await Promise.all(
  methods.map(([method, params]) =>
    callGatewayFromCli(method, options, params, { progress: false }).then(
      (value) => [method, { answered: true, value }],
      (error) => {
        // The reason on stderr (the runtime's log), never the token: OpenClaw's errors name codes and methods.
        process.stderr.write(`gateway read ${method}: ${error instanceof Error ? error.message : String(error)}\n`);
        return [method, { answered: false }];
      },
    ),
  ),
);
process.stdout.write(`${JSON.stringify(Object.fromEntries(answers))}\n`);
// Open handles of the client (sockets, timers) must not keep a finished read alive.
process.exit(0);
