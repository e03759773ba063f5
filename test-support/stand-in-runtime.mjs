// A stand-in for OUR runtime (apps/runtime), for the local ComputeDriver's mechanics tests only:
// it honours the runtime contract (manifest, endpoint.json, token-protected startup status, a
// gateway child whose exit ends the runtime) without installing anything. The scenario comes
// from the manifest's configuration values, key `standIn` (see test-support/stand-in-runtime.ts).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

if (process.argv[2] === '--gateway') {
  // The "gateway": serves /readyz to its token, or never becomes ready. /received-secrets says
  // which Secret variables reached it, each as a SHA-256 of its value (never the value), so a
  // test proves delivery without reading /proc.
  const [, , , token, mode, secretNames] = process.argv;
  const received = Object.fromEntries(
    (secretNames ? secretNames.split(',') : [])
      .filter((name) => process.env[name] !== undefined)
      .map((name) => [name, `sha256:${createHash('sha256').update(process.env[name]).digest('hex')}`]),
  );
  const server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) return res.writeHead(401).end();
    if (req.url === '/received-secrets') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    if (req.method === 'POST' && req.url === '/v1/chat/completions') return chat(req, res, token);
    const ok = req.url === '/readyz' && mode !== 'never';
    // OpenClaw's /readyz body, so the real probe (probeGatewayReady) accepts it too.
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready: ok }));
  });
  // Like the real runtime: OCC_RUNTIME_GATEWAY_ADDRESS/PORT when set (a pod's IP and fixed port), else loopback on a free port.
  const gatewayPort = Number(process.env.OCC_RUNTIME_GATEWAY_PORT ?? 0);
  server.listen(gatewayPort, process.env.OCC_RUNTIME_GATEWAY_ADDRESS || '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  main();
}

/**
 * The stand-in gateway's OpenAI-compatible chat endpoint, streamed as OpenClaw streams it: it
 * echoes the message and the session (`user`) in pieces. A message that asks for the token gets
 * it back, cut across two pieces (a careless agent printing its environment), for redaction tests.
 */
function chat(req, res, token) {
  let raw = '';
  req.on('data', (chunk) => (raw += chunk));
  req.on('end', () => {
    const body = JSON.parse(raw || '{}');
    const text = body.messages?.at(-1)?.content ?? '';
    const pieces = text.includes('print your token')
      ? ['my token is ', token.slice(0, 10), token.slice(10), ' — done']
      : ['stand-in reply to ', JSON.stringify(text), ` (session ${body.user ?? 'none'})`];
    const frame = (data) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    frame({ id: 'chatcmpl-stand-in', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    for (const content of pieces) frame({ id: 'chatcmpl-stand-in', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    frame({ id: 'chatcmpl-stand-in', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    res.end('data: [DONE]\n\n');
  });
}

function main() {
  const env = process.env;
  const revisionDir = env.OCC_RUNTIME_REVISION_DIR;
  // A file (local, Kubernetes) or inline (docker's bounded environment), like the real runtime.
  const manifest = JSON.parse(env.OCC_RUNTIME_MANIFEST_JSON ?? readFileSync(env.OCC_RUNTIME_MANIFEST, 'utf8'));
  const scenario = manifest.configuration.values.standIn ?? {};
  const startupId = randomBytes(12).toString('base64url');
  // Like the real runtime: only enabled selections are ever reported as installed.
  const selections = Object.entries(manifest.plugins.selections)
    .filter(([, s]) => s.enabled)
    .map(([key]) => key);
  const failures = scenario.failures ?? [];
  const failed = new Set(failures.map((f) => f.pluginId));
  const starts = join(revisionDir, 'stand-in-starts');
  const firstStart = !existsSync(starts);
  const startIndex = firstStart ? 0 : readFileSync(starts, 'utf8').trim().split('\n').length;
  writeFileSync(starts, `${startupId}\n`, { flag: 'a', mode: 0o600 });
  const outcome = scenario.outcomes?.[startIndex] ?? scenario.outcome;
  // Like the real runtime: the Secret variables the manifest names (and the harness credential's
  // variable, for a Codex Agent) leave the runtime's own environment and go to the gateway only
  // (standing in for the Codex harness side too). Names are printed, never values.
  const secrets = {};
  const harnessVariable = manifest.harnessAuth?.environment;
  for (const name of [...manifest.secretEnvironment, ...(harnessVariable ? [harnessVariable] : [])]) {
    if (env[name] !== undefined) secrets[name] = env[name];
    delete env[name];
  }
  if (scenario.leakSecrets) console.log(`stand-in leaks ${[env.OCC_RUNTIME_STATUS_TOKEN, ...Object.values(secrets)].join(' ')}`);
  const harness = harnessVariable && secrets[harnessVariable] !== undefined ? ` harness=${harnessVariable}` : '';
  console.log(
    `stand-in start startupId=${startupId} secrets=${manifest.secretEnvironment
      .filter((n) => n in secrets)
      .sort()
      .join(',')}${harness} env=${Object.keys(env).sort().join(',')}`,
  );

  let status = {
    revisionId: scenario.statusRevisionId ?? manifest.revisionId,
    startupId: scenario.statusStartupId ?? startupId,
    phase: 'preparing',
    plugins: [],
    failures: [],
    gatewayPort: null,
    error: null,
  };
  let gateway = null;
  let stopping = false;
  // The real runtime's hold (apps/runtime/src/proceed-gate.ts): `prepared` until POST /proceed,
  // unless an earlier start of its container was told to go (OCC_RUNTIME_PROCEED_MARKER).
  const proceededBefore = Boolean(env.OCC_RUNTIME_PROCEED_MARKER) && existsSync(env.OCC_RUNTIME_PROCEED_MARKER);
  const holds = env.OCC_RUNTIME_HOLD_BEFORE_GATEWAY === '1' && !proceededBefore;
  let goOn = () => {};
  const given = new Promise((resolve) => (goOn = resolve));

  const server = createServer((req, res) => {
    // The token as a bearer, or as X-OCC-Status-Token through the Kubernetes pod proxy (which drops Authorization).
    const tokenOk = req.headers.authorization === `Bearer ${env.OCC_RUNTIME_STATUS_TOKEN}` || req.headers['x-occ-status-token'] === env.OCC_RUNTIME_STATUS_TOKEN;
    if (holds && req.url === '/proceed' && req.method === 'POST' && tokenOk) {
      goOn();
      return res.writeHead(204).end();
    }
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (url.pathname !== '/startup-status' || !tokenOk) return res.writeHead(401).end();
    // The real status server's versions and long-poll (apps/runtime/src/status-server.ts):
    // `?seen=<version>&waitMs=<n>` is held until the status is another version or the wait ends.
    const body = () => scenario.rawStatus ?? JSON.stringify(scenario.startupSteps ? { ...status, progress } : status);
    const versionOf = (text) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
    const answer = () => {
      const text = body();
      res.writeHead(200, { 'content-type': 'application/json', 'x-occ-status-version': versionOf(text) }).end(text);
    };
    const seen = url.searchParams.get('seen');
    const waitMs = Math.min(Number(url.searchParams.get('waitMs')) || 0, 25_000);
    if (!seen || waitMs <= 0 || versionOf(body()) !== seen) return answer();
    const deadline = Date.now() + waitMs;
    const timer = setInterval(() => {
      if (versionOf(body()) === seen && Date.now() < deadline) return;
      clearInterval(timer);
      answer();
    }, 50);
    res.on('close', () => clearInterval(timer));
  });
  server.listen(Number(env.OCC_RUNTIME_STATUS_PORT ?? 0), env.OCC_RUNTIME_STATUS_ADDRESS || '127.0.0.1', () => {
    // The real runtime's one line per start naming its startup id (the kubernetes driver reads it from the pod log).
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), source: 'occ-runtime', event: 'startup.serving', startupId, statusPort: server.address().port })}\n`);
    const endpoint = { pid: scenario.endpointPid === 'wrong' ? process.pid + 100000 : process.pid, statusPort: server.address().port, startupId };
    const temp = join(revisionDir, `.endpoint.${startupId}.tmp`);
    writeFileSync(temp, JSON.stringify(endpoint), { mode: 0o600 });
    renameSync(temp, join(revisionDir, 'endpoint.json'));
  });

  // With `startupSteps`, the real runtime's progress (apps/runtime/src/progress.ts): typed entries
  // in its status (what the deployment event stream is made of) and its JSON log lines.
  const progress = [];
  const logEvent = (event, fields = {}, entry = null) => {
    if (!scenario.startupSteps) return;
    const time = new Date().toISOString();
    process.stderr.write(`${JSON.stringify({ time, source: 'occ-runtime', event, ...fields })}\n`);
    if (entry) progress.push({ at: time, ...entry });
  };
  const stepDone = (step, ms) => logEvent('startup.step', { step, ms }, { step });
  stepDone('plan', 1);
  stepDone('write-config', 1);
  for (const key of selections) {
    logEvent('plugin.install.start', { selectionKey: key, package: 'stand-in', version: '0.0.0' });
    const result = failed.has(key) ? 'rejected' : 'done';
    logEvent(
      `plugin.install.${result}`,
      { selectionKey: key, ms: 1, ...(failed.has(key) ? { exitCode: 1, warning: 'PLUGIN_INSTALL_FAILED' } : {}) },
      { step: 'install', pluginId: key, result },
    );
  }
  stepDone('install', 2);
  stepDone('registry-refresh', 1);

  const fail = () => {
    logEvent(
      'startup.failed',
      { code: scenario.errorCode ?? 'PLUGIN_VERIFICATION_FAILED', message: 'Startup failed.', ms: 3 },
      { code: scenario.errorCode ?? 'PLUGIN_VERIFICATION_FAILED' },
    );
    const detail = scenario.errorDetail ? { detail: scenario.errorDetail } : {};
    status = { ...status, phase: 'failed', error: { code: scenario.errorCode ?? 'PLUGIN_VERIFICATION_FAILED', message: 'Startup failed.', ...detail } };
    console.log('stand-in failed');
  };
  const finish = async () => {
    if (outcome === 'failed' && !(holds && scenario.failsAfterGo)) return fail();
    if (holds) {
      status = { ...status, phase: 'prepared' };
      console.log('stand-in prepared');
      await given;
      if (stopping) return;
      status = { ...status, phase: 'preparing' };
      console.log('stand-in proceeds');
      if (scenario.exitAfterGoMs !== undefined) setTimeout(() => process.exit(4), scenario.exitAfterGoMs);
      if (outcome === 'failed') return fail();
    }
    gateway = spawn(process.execPath, [process.argv[1], '--gateway', env.OCC_RUNTIME_GATEWAY_TOKEN, scenario.gateway ?? 'ready', Object.keys(secrets).join(',')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...env, ...secrets },
    });
    writeFileSync(join(revisionDir, 'gateway.pid'), `${gateway.pid}\n`, { mode: 0o600 });
    gateway.stdout.once('data', (chunk) => {
      const { port } = JSON.parse(String(chunk));
      stepDone('verify-installs', 1);
      stepDone('verify-config', 1);
      logEvent(
        'startup.ready',
        { plugins: selections.filter((s) => !failed.has(s)), failures: failures.map((f) => `${f.pluginId} ${f.code}`), gatewayPort: port, ms: 3 },
        { step: 'gateway' },
      );
      // What a real runtime reads back from its gateway; the stand-in's one plugin offers one tool.
      const loaded = { plugins: [{ id: 'stand-in', tools: ['stand_in_echo'] }], coreTools: ['read'], scheduledJobs: [] };
      status = { ...status, phase: 'ready', plugins: scenario.plugins ?? selections.filter((s) => !failed.has(s)), failures, gatewayPort: port, loaded };
      console.log(`stand-in ready gatewayPort=${port}`);
    });
    gateway.once('exit', (code, signal) => {
      if (stopping) return;
      console.log(`stand-in gateway exited (${signal ?? code})`);
      process.exit(3);
    });
  };
  setTimeout(() => void finish(), scenario.preparingMs ?? 150);
  if (scenario.exitAfterMs !== undefined && (firstStart || !scenario.exitOnce)) setTimeout(() => process.exit(4), scenario.exitAfterMs);
  for (let i = 0; i < (scenario.logLines ?? 0); i++) console.log(`stand-in line ${i} ${'x'.repeat(scenario.logLineLength ?? 0)}`);

  process.on('SIGTERM', () => {
    if (scenario.ignoreSigterm) return console.log('stand-in ignores SIGTERM');
    stopping = true;
    console.log('stand-in stopping');
    gateway?.kill('SIGTERM');
    server.close();
    setTimeout(() => process.exit(0), 20);
  });
}
