import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../controller/src/state/pg-database.ts';
import { runOcc } from '../../../test-support/cli-world.ts';

const OCC = fileURLToPath(new URL('../bin/occ.mjs', import.meta.url));
const onPostgres = process.env.OCC_TEST_DB === 'postgres';
const PG_URL = process.env.OCC_TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts `occ up` and resolves once it prints the URL it listens on. */
function startOcc(dataDir: string, env: NodeJS.ProcessEnv): Promise<Running> {
  const child = spawn(process.execPath, [OCC, 'up', '--data-dir', dataDir, '--port', '0'], { env: { ...process.env, ...env, OCC_LOG_LEVEL: 'warn' } });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`occ up did not start:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /OCC is listening on (http:\/\/\S+)/.exec(out);
      // The banner ends with the administrator key line.
      if (match && /Administrator API key: .*\n/.test(out)) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`occ up exited with ${code}:\n${out}`)));
  });
}

function stop(running: Running): Promise<number | null> {
  return new Promise((resolve) => {
    running.child.removeAllListeners('exit');
    running.child.once('exit', (code) => resolve(code));
    running.child.kill('SIGTERM');
  });
}

async function withAdmin(work: (admin: ReturnType<typeof createPgDatabase>) => Promise<unknown>): Promise<void> {
  const admin = createPgDatabase({ connectionString: PG_URL });
  try {
    await work(admin);
  } finally {
    await admin.close();
  }
}

describe(`occ up (${onPostgres ? 'DATABASE_URL' : 'embedded PGlite'})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'occ-up-'));
  const schema = `cli_${randomBytes(6).toString('hex')}`;
  // `occ up` writes its context here, never into the user's own configuration.
  const configFile = join(dataDir, 'occ-config', 'config.json');
  const env: NodeJS.ProcessEnv = { OCC_CONFIG: configFile };

  beforeAll(async () => {
    delete process.env.DATABASE_URL;
    if (onPostgres) {
      const admin = createPgDatabase({ connectionString: PG_URL });
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query(`CREATE SCHEMA ${schema}_none`);
      await admin.close();
      env.DATABASE_URL = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    }
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (onPostgres) {
      const admin = createPgDatabase({ connectionString: PG_URL });
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.query(`DROP SCHEMA IF EXISTS ${schema}_none CASCADE`);
      await admin.close();
    }
  });

  it('bootstraps on first start, writes the admin key 0600, and keeps every resource across a restart', async () => {
    const first = await startOcc(dataDir, env);
    const keyPath = join(dataDir, 'admin-api-key');
    expect(first.output()).toContain(keyPath);
    // The embedded default: the local ComputeDriver, its files private under the data directory.
    expect(first.output()).toContain('ComputeDriver: local');
    // The web console is served at / (built by npm ci) and the banner says where.
    expect(first.output()).toContain(`Console: ${first.url}/`);
    const consolePage = await fetch(`${first.url}/`);
    expect(consolePage.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await consolePage.text()).toContain('<title>OCC console</title>');
    expect(statSync(join(dataDir, 'compute', 'local')).mode & 0o777).toBe(0o700);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'secret-key')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dataDir, 'pgdata'))).toBe(!onPostgres);
    const key = readFileSync(keyPath, 'utf8').trim();
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const installation = (await (await fetch(`${first.url}/installation`, { headers: auth })).json()) as any;
    const created = await fetch(`${first.url}/namespaces`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'kept-across-restarts' }) });
    expect(created.status).toBe(201);
    const secret = await fetch(`${first.url}/namespaces/${((await created.json()) as any).data.id}/secrets`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 's', value: 'v' }),
    });
    expect(secret.status).toBe(201);
    // The `local` context: current, this server, the key, readable by its owner only; `occ` uses it as is.
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({ currentContext: 'local', contexts: { local: { server: first.url, apiKey: key, namespace: 'default' } } });
    const listed = await runOcc(['namespaces', 'list', '-o', 'json'], { PATH: process.env.PATH, HOME: dataDir, OCC_CONFIG: configFile });
    expect(listed.code).toBe(0);
    expect(
      JSON.parse(listed.stdout)
        .items.map((n: { name: string }) => n.name)
        .sort(),
    ).toEqual(['default', 'kept-across-restarts']);
    expect((await runOcc(['context', 'set-namespace', 'kept-across-restarts'], { PATH: process.env.PATH, HOME: dataDir, OCC_CONFIG: configFile })).code).toBe(0);
    expect(await stop(first)).toBe(0);

    const second = await startOcc(dataDir, env);
    try {
      expect(readFileSync(keyPath, 'utf8').trim()).toBe(key);
      // The new address, and the default Namespace the person chose is kept.
      expect(JSON.parse(readFileSync(configFile, 'utf8')).contexts.local).toEqual({ server: second.url, apiKey: key, namespace: 'kept-across-restarts' });
      const again = (await (await fetch(`${second.url}/installation`, { headers: auth })).json()) as any;
      expect(again.data.id).toBe(installation.data.id);
      const names = ((await (await fetch(`${second.url}/namespaces`, { headers: auth })).json()) as any).data.items.map((n: { name: string }) => n.name);
      expect(names.sort()).toEqual(['default', 'kept-across-restarts']);
      expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  });

  it('OCC_COMPUTE_DRIVER=none runs without compute: deploys answer 501', async () => {
    const noneDir = mkdtempSync(join(tmpdir(), 'occ-up-none-'));
    const running = await startOcc(noneDir, {
      ...env,
      OCC_COMPUTE_DRIVER: 'none',
      ...(onPostgres ? { DATABASE_URL: `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}_none`)}` } : {}),
    });
    try {
      expect(running.output()).toContain('ComputeDriver: none');
      const key = readFileSync(join(noneDir, 'admin-api-key'), 'utf8').trim();
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const post = async (url: string, body: unknown) =>
        ((await (await fetch(`${running.url}${url}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json()) as any).data;
      const ns = ((await (await fetch(`${running.url}/namespaces`, { headers: auth })).json()) as any).data.items[0].id;
      const cfg = await post(`/namespaces/${ns}/configurations`, { name: 'c', values: {} });
      const agent = await post(`/namespaces/${ns}/agents`, { name: 'a', configurationId: cfg.id, harness: 'openclaw' });
      const deploy = await fetch(`${running.url}/namespaces/${ns}/agents/${agent.id}/deploy`, { method: 'POST', headers: { authorization: auth.authorization } });
      expect(deploy.status).toBe(501);
      expect(existsSync(join(noneDir, 'compute'))).toBe(false);
    } finally {
      expect(await stop(running)).toBe(0);
      rmSync(noneDir, { recursive: true, force: true });
    }
  });

  it('a configuration file it cannot read costs the context, not the start', async () => {
    const brokenDir = mkdtempSync(join(tmpdir(), 'occ-up-broken-'));
    const broken = join(brokenDir, 'config.json');
    writeFileSync(broken, '{ not json');
    // A first start (a fresh database), so the administrator key is on this machine.
    if (onPostgres) await withAdmin((admin) => admin.query(`CREATE SCHEMA ${schema}_cfg`));
    const running = await startOcc(brokenDir, {
      ...env,
      OCC_CONFIG: broken,
      OCC_COMPUTE_DRIVER: 'none',
      ...(onPostgres ? { DATABASE_URL: `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}_cfg`)}` } : {}),
    });
    try {
      expect(running.output()).toContain(`Context: not written (${broken} is not an occ configuration file`);
      expect(readFileSync(broken, 'utf8')).toBe('{ not json');
      expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await stop(running)).toBe(0);
      rmSync(brokenDir, { recursive: true, force: true });
      if (onPostgres) await withAdmin((admin) => admin.query(`DROP SCHEMA IF EXISTS ${schema}_cfg CASCADE`));
    }
  });

  it('refuses unknown flags with a clear message', async () => {
    const child = spawn(process.execPath, [OCC, 'up', '--bogus', '1'], { env: { ...process.env, ...env } });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain('Unknown flag --bogus');
  });
});
