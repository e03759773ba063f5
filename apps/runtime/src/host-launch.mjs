// Started over SSH by the ssh ComputeDriver (docs/compute-ssh.md) with the pinned Node: reads one
// runtime start from stdin — never argv, never a file, so a delivered Secret is seen by no `ps` and
// left on no disk —, starts the runtime in a session of its own (it outlives the SSH session that
// started it), appends its output to its private log, writes its pid and prints it as JSON.
//
// stdin: {"command": string, "args": string[], "env": {name: value}, "cwd": string, "log": string, "pidFile": string}
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, renameSync, writeFileSync } from 'node:fs';

const MAX_REQUEST_BYTES = 1024 * 1024;

async function readRequest() {
  const chunks = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new Error('The start request is too large.');
    chunks.push(chunk);
  }
  const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const strings = (list) => Array.isArray(list) && list.every((s) => typeof s === 'string');
  const env = request?.env;
  const envOk = env !== null && typeof env === 'object' && Object.values(env).every((v) => typeof v === 'string');
  if (
    typeof request?.command !== 'string' ||
    !strings(request.args) ||
    !envOk ||
    typeof request.cwd !== 'string' ||
    typeof request.log !== 'string' ||
    typeof request.pidFile !== 'string'
  ) {
    throw new Error('The start request is not well-formed.');
  }
  return request;
}

const request = await readRequest();
// Each start writes a log of its own: the previous start's is kept beside it (for an operator on the host), never served
// again, so a value an earlier start delivered (a rotated Secret) is not in what OCC reads back.
if (existsSync(request.log)) renameSync(request.log, `${request.log}.previous`);
const log = openSync(request.log, 'a', 0o600);
const child = spawn(request.command, request.args, { cwd: request.cwd, env: request.env, detached: true, stdio: ['ignore', log, log] });
closeSync(log);
await new Promise((resolve, reject) => {
  child.once('spawn', resolve);
  child.once('error', reject);
});
const temporary = `${request.pidFile}.${process.pid}`;
writeFileSync(temporary, `${child.pid}\n`, { mode: 0o600 });
renameSync(temporary, request.pidFile);
child.unref();
process.stdout.write(`${JSON.stringify({ pid: child.pid })}\n`);
