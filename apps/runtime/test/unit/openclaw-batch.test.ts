import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readCommandArgs } from '../../src/openclaw-batch.ts';
import { OpenClawSession } from '../../src/openclaw-session.ts';

// The session's side of the batch protocol (openclaw-batch.mjs) against a stand-in process that
// speaks it: one JSON argv per line in on fd 3, one marked record per command out. The stand-in answers
// `echo <text>` (exit 0), `fail <code>` (a record with that code, then it exits as the real batch
// does), `hang` (no answer), `die <code>` (exits without a record), `stray` (a line that is no
// record, then a record), `pid` (its own pid), `err <text>` (text on stderr, then a record),
// `glued` (output without a newline, then the batch's newline and record), `wide <n>` (n × '’' in
// one record, written in pieces that split its characters), `big` (a record saying tooLarge),
// `env <name>` (that variable of its own environment).
const dir = mkdtempSync(join(tmpdir(), 'occ-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const standIn = join(dir, 'stand-in.mjs');
writeFileSync(
  standIn,
  `import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
const MARK = '\\u0000occ-batch-record ';
const record = (code, stdout, stderr = '') => process.stdout.write(MARK + JSON.stringify({ code, stdout, stderr, ms: 7 }) + '\\n');
for await (const line of createInterface({ input: new Socket({ fd: 3, readable: true, writable: false }) })) {
  const [verb, arg] = JSON.parse(line);
  if (verb === 'echo') record(0, arg);
  else if (verb === 'pid') record(0, String(process.pid));
  else if (verb === 'env') record(0, process.env[arg] ?? '<unset>');
  else if (verb === 'stray') { process.stdout.write('not a record\\n'); record(0, 'after stray'); }
  else if (verb === 'err') { process.stderr.write(arg); record(0, ''); }
  else if (verb === 'fail') { record(Number(arg), '{"ok":false}', 'failed'); process.exit(1); }
  else if (verb === 'die') { process.stderr.write('crashed'); process.exit(Number(arg)); }
  else if (verb === 'hang') await new Promise(() => setInterval(() => {}, 1000));
  else if (verb === 'glued') { process.stdout.write('late output without a newline'); process.stdout.write('\\n'); record(0, 'glued'); }
  else if (verb === 'wide') {
    const bytes = Buffer.from(MARK + JSON.stringify({ code: 0, stdout: '’'.repeat(Number(arg)), stderr: '', ms: 1 }) + '\\n');
    for (let at = 0; at < bytes.length; at += 7) { process.stdout.write(bytes.subarray(at, at + 7)); await new Promise((r) => setImmediate(r)); }
  }
  else if (verb === 'big') { process.stdout.write(MARK + JSON.stringify({ code: 0, stdout: '', stderr: '', ms: 1, tooLarge: true }) + '\\n'); process.exit(1); }
}
process.exit(0);
`,
);

const spawned: ChildProcess[] = [];
afterEach(() => {
  for (const child of spawned.splice(0)) child.kill('SIGKILL');
});
const standInCli = (spawnable = true) => ({
  spawnLongLived: (_script: string, _args: readonly string[], env: Readonly<Record<string, string>> = {}) => {
    if (!spawnable) return null;
    const child = spawn(process.execPath, [standIn], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached: true });
    spawned.push(child);
    return child;
  },
});
const session = (spawnable = true) => new OpenClawSession(standInCli(spawnable), { openclawRunMain: 'unused', openclawConfigSnapshot: 'unused' });
const options = { timeoutMs: 10_000 };
const stdoutOf = (result: Awaited<ReturnType<OpenClawSession['run']>>) => (result.outcome.kind === 'exited' ? result.outcome.stdout : null);

describe('the prepare’s commands in one OpenClaw process (openclaw-session.ts)', () => {
  it('commands run one after another in the same process, each with its own output and time; stray lines are not records', async () => {
    const s = session();
    const first = await s.run(['pid'], options);
    expect(await s.run(['echo', 'hello'], options)).toEqual({ outcome: { kind: 'exited', code: 0, stdout: 'hello', stderr: '' }, ms: 7 });
    expect((await s.run(['err', 'npm error code ECONNREFUSED\n'], options)).outcome).toMatchObject({ stderr: 'npm error code ECONNREFUSED\n' });
    expect(stdoutOf(await s.run(['stray'], options))).toBe('after stray');
    expect(stdoutOf(await s.run(['pid'], options))).toBe(stdoutOf(first));
    await s.end();
  });

  it('a failed command ends its process; the next command starts a fresh one', async () => {
    const s = session();
    const before = stdoutOf(await s.run(['pid'], options));
    // stderr: what the process wrote there while the command ran (the stand-in's record carries its own copy, unused).
    expect((await s.run(['fail', '3'], options)).outcome).toEqual({ kind: 'exited', code: 3, stdout: '{"ok":false}', stderr: '' });
    const after = stdoutOf(await s.run(['pid'], options));
    expect(after).not.toBe(before);
    await s.end();
  });

  it('a command that outlives its deadline is stopped with its process (timeout, stderr since it began); the next gets a new process', async () => {
    const s = session();
    await s.run(['err', 'before the hang'], options);
    const started = Date.now();
    const result = await s.run(['hang'], { timeoutMs: 300 });
    expect(result.outcome).toMatchObject({ kind: 'timeout', stderr: '' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stdoutOf(await s.run(['echo', 'again'], options))).toBe('again');
    await s.end();
  });

  it('an abort stops the running command; an aborted signal runs nothing', async () => {
    const s = session();
    const controller = new AbortController();
    const running = s.run(['hang'], { ...options, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await running).outcome).toEqual({ kind: 'aborted' });
    expect((await s.run(['echo', 'x'], { ...options, signal: controller.signal })).outcome).toEqual({ kind: 'aborted' });
  });

  it('a process that ends without the command’s record is no answer (exit 0 included), never an exit status of the command; stderr kept', async () => {
    const s = session();
    expect((await s.run(['die', '4'], options)).outcome).toEqual({ kind: 'no-answer', code: 4, stderr: 'crashed' });
    expect((await s.run(['die', '0'], options)).outcome).toEqual({ kind: 'no-answer', code: 0, stderr: 'crashed' });
    expect(await session(false).run(['echo', 'x'], options)).toEqual({ outcome: { kind: 'spawn-error' }, ms: 0 });
  });

  it('a command that needs variables at its process’s start (processEnv: the Codex harness’s npm cache) gets a process started with them; commands without run in whichever process is open', async () => {
    const s = session();
    const npm = { processEnv: { OCC_TEST_NPM_CACHE: '/cache/one' } };
    const plain = stdoutOf(await s.run(['pid'], options));
    expect(stdoutOf(await s.run(['env', 'OCC_TEST_NPM_CACHE'], { ...options, ...npm }))).toBe('/cache/one');
    const started = stdoutOf(await s.run(['pid'], options));
    expect(started).not.toBe(plain);
    expect(() => process.kill(Number(plain), 0)).toThrow();
    // The inspection and the reads after the install: the same process.
    expect(stdoutOf(await s.run(['pid'], { ...options, ...npm }))).toBe(started);
    expect(stdoutOf(await s.run(['env', 'OCC_TEST_NPM_CACHE'], options))).toBe('/cache/one');
    // Other values: a process of their own.
    expect(stdoutOf(await s.run(['env', 'OCC_TEST_NPM_CACHE'], { ...options, processEnv: { OCC_TEST_NPM_CACHE: '/cache/two' } }))).toBe('/cache/two');
    expect(stdoutOf(await s.run(['pid'], options))).not.toBe(started);
    await s.end();
  });

  it('end resolves once the process has exited; ending an idle session does nothing', async () => {
    const s = session();
    await s.end();
    const pid = Number(stdoutOf(await s.run(['pid'], options)));
    await s.end();
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('a record after output that lacked its newline is still read; a character split between two reads stays whole', async () => {
    const s = session();
    expect(stdoutOf(await s.run(['glued'], options))).toBe('glued');
    expect(stdoutOf(await s.run(['wide', '5000'], options))).toBe('’'.repeat(5000));
    await s.end();
  });

  it('a command that printed more than the batch keeps is output-too-large, and its process ends', async () => {
    const s = session();
    const before = stdoutOf(await s.run(['pid'], options));
    expect((await s.run(['big'], options)).outcome).toEqual({ kind: 'output-too-large' });
    expect(stdoutOf(await s.run(['pid'], options))).not.toBe(before);
    await s.end();
  });

  it('many commands in one process add no listener per command', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const s = session();
      for (let i = 0; i < 15; i++) expect(stdoutOf(await s.run(['echo', String(i)], options))).toBe(String(i));
      await s.end();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('end waits for the commands asked before it, then for the process to exit; nothing runs on after it', async () => {
    const s = session();
    const asked = s.run(['pid'], options);
    await s.end();
    const pid = Number(stdoutOf(await asked));
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('the commands are the ones the CLI runs alone', () => {
    expect(readCommandArgs({ command: 'refreshRegistry' })).toEqual(['plugins', 'registry', '--refresh', '--json']);
    expect(readCommandArgs({ command: 'inspect', pluginId: 'memory-core' })).toEqual(['plugins', 'inspect', 'memory-core', '--json']);
    expect(readCommandArgs({ command: 'configGet', section: 'tools' })).toEqual(['config', 'get', 'tools', '--json']);
  });
});
