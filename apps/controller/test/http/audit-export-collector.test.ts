import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EXPORT_CURSOR_HEADER, type AuditEvent } from '@occ/contracts';
import { composeController, type ComposedController } from '../../src/composition/compose.ts';
import { bootstrapInstallation } from '../../src/core/use-cases/installation.ts';
import { freeLoopbackPort } from '../../../runtime/src/free-port.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test-support/test-database.ts';
import { sleep, waitFor } from '../../../../test-support/deploy-helpers.ts';
import { uniqueName } from '../../../../test-support/world.ts';

/**
 * A SIEM collector on loopback, the way docs/access-control.md describes one: it polls the audit
 * export with its cursor, hands each page to its receiver, and only then persists the cursor (to
 * a file). The receiver goes down mid-stream, loses an acknowledgement, the collector is stopped,
 * OCC is closed and started again on the same database while actions go on: every event reaches
 * the receiver at least once, in the export's order (so in order per resource), none is lost
 * (compared with the table), and the canary Secret values are in none of them.
 */

/** The SIEM's intake: NDJSON bodies POSTed to it. It can be down, or lose one acknowledgement. */
class Receiver {
  readonly lines: string[] = [];
  /** Store the next batch but drop the connection before answering (the collector will send it again). */
  loseNextAck = false;
  private server: Server | null = null;

  constructor(readonly port: number) {}

  async up(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.lines.push(...body.split('\n').filter((line) => line !== ''));
        if (this.loseNextAck) {
          this.loseNextAck = false;
          req.socket.destroy();
          return;
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The collector: a loop with a cursor file. Any failure leaves the cursor where it was. */
class Collector {
  readonly failures = { export: 0, delivery: 0 };
  private running = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly occ: () => string,
    private readonly apiKey: string,
    private readonly cursorFile: string,
    private readonly receiver: string,
  ) {}

  private cursor(): string | undefined {
    return existsSync(this.cursorFile) ? readFileSync(this.cursorFile, 'utf8') : undefined;
  }

  private saveCursor(cursor: string): void {
    writeFileSync(`${this.cursorFile}.tmp`, cursor);
    renameSync(`${this.cursorFile}.tmp`, this.cursorFile);
  }

  /** One poll: export from the cursor, deliver, persist. True when the page was full (poll again at once). */
  private async once(): Promise<boolean> {
    const cursor = this.cursor();
    let res: Response;
    try {
      res = await fetch(`${this.occ()}/audit-events/export?limit=4${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${this.apiKey}` } });
    } catch {
      this.failures.export++;
      return false;
    }
    // An OCC shutting down or starting answers 503: try again later. Anything else is a bug here.
    if (res.status >= 500) {
      this.failures.export++;
      return false;
    }
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    const body = await res.text();
    const next = res.headers.get(AUDIT_EXPORT_CURSOR_HEADER)!;
    if (body !== '') {
      try {
        const delivered = await fetch(this.receiver, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
        if (!delivered.ok) throw new Error(`receiver answered ${delivered.status}`);
      } catch {
        this.failures.delivery++;
        return false;
      }
    }
    if (next !== cursor) this.saveCursor(next);
    return body.split('\n').length > 4;
  }

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) if (!(await this.once())) await sleep(40);
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

describe('a SIEM collector polling the audit export through outages and an OCC restart', () => {
  let database: TestDatabase;
  let occ: ComposedController | null = null;
  let port: number;
  let adminKey: string;
  const secretKey = randomBytes(32);
  const dir = mkdtempSync(join(tmpdir(), 'occ-collector-'));
  let receiver: Receiver;
  let collector: Collector | null = null;
  const base = () => `http://127.0.0.1:${port}`;

  async function startOcc(): Promise<void> {
    occ = await composeController({
      database: database.db,
      secretKey,
      logger: false,
      consoleDirectory: null,
      compute: createScriptedCompute(),
      worker: { settings: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 }, backoff: { baseMs: 50, capMs: 500 } },
    });
    await occ.app.listen({ port, host: '127.0.0.1' });
  }

  async function stopOcc(): Promise<void> {
    await occ?.close();
    occ = null;
  }

  async function api(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? JSON.parse(text).data : undefined;
  }

  /** The table in the export's order. */
  const tableIds = async () => (await database.db.query<{ id: string }>('SELECT id FROM audit_events ORDER BY xid, seq')).rows.map((r) => r.id);
  const delivered = () => receiver.lines.map((line) => JSON.parse(line) as AuditEvent);
  const deliveredIds = () => new Set(delivered().map((e) => e.id));
  const allDelivered = () =>
    waitFor(
      'every event of the table at the receiver',
      async () => {
        const ids = deliveredIds();
        return (await tableIds()).filter((id) => !ids.has(id));
      },
      (missing) => missing.length === 0,
      60_000,
      50,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    port = await freeLoopbackPort();
    receiver = new Receiver(await freeLoopbackPort());
    await startOcc();
    const boot = await bootstrapInstallation(occ!.deps);
    if (!boot.created) throw new Error('the test database was already bootstrapped');
    adminKey = boot.adminKey;
  });
  afterAll(async () => {
    await collector?.stop();
    await receiver?.down();
    await stopOcc();
    await database?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers every event at least once, in order, none lost, no Secret value', async () => {
    const canaries = Array.from({ length: 3 }, () => `canary-collector-${randomBytes(16).toString('hex')}`);
    const cursorFile = join(dir, 'cursor');
    const newCollector = () => new Collector(base, adminKey, cursorFile, `http://127.0.0.1:${receiver.port}/ingest`);
    await receiver.up();
    collector = newCollector();
    collector.start();

    // Everything up: resources created, changed, an Agent deployed (scripted compute) and stopped.
    const ns = await api('POST', '/namespaces', { name: uniqueName('siem') });
    const nsUrl = `/namespaces/${ns.id}`;
    const secret = await api('POST', `${nsUrl}/secrets`, { name: uniqueName('s'), value: canaries[0] });
    const cfg = await api('POST', `${nsUrl}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { TOKEN: { secretId: secret.id } } });
    const agent = await api('POST', `${nsUrl}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    const agentUrl = `${nsUrl}/agents/${agent.id}`;
    await api('PATCH', agentUrl, { plugins: {} });
    // The Agent's own principal may use the Secret its Configuration binds.
    const role = await api('POST', '/iam/roles', { name: uniqueName('r'), permissions: [{ action: 'operate', resourceKind: 'secret' }] });
    await api('POST', '/iam/access-bindings', { principalId: agent.servicePrincipalId, roleId: role.id, namespaceId: ns.id });
    await api('POST', `${agentUrl}/deploy`);
    await waitFor(
      'the deploy to become active',
      () => api('GET', agentUrl),
      (a) => a.activeRevisionId !== null,
    );
    await api('POST', `${agentUrl}/stop`);
    await waitFor(
      'the stop to finish',
      () => api('GET', agentUrl),
      (a) => a.activeRevisionId === null,
    );
    await allDelivered();
    const beforeOutage = receiver.lines.length;

    // The receiver goes down mid-stream: the collector keeps polling, delivers nothing, keeps its cursor.
    await receiver.down();
    await api('PATCH', `${nsUrl}/secrets/${secret.id}`, { value: canaries[1] });
    await api('PATCH', `${nsUrl}/configurations/${cfg.id}`, { values: { a: 1 } });
    const second = await api('POST', `${nsUrl}/agents`, { name: uniqueName('a'), configurationId: cfg.id, harness: 'openclaw' });
    await waitFor(
      'a failed delivery',
      async () => collector!.failures.delivery,
      (n) => n >= 2,
    );
    // The collector itself is stopped too (its host goes down), with the cursor of its last delivered page.
    await collector.stop();
    const cursorAtStop = readFileSync(cursorFile, 'utf8');
    expect(receiver.lines.length).toBe(beforeOutage);

    // More actions, then OCC is closed; the collector comes back while OCC is still down.
    await api('PATCH', `/namespaces/${ns.id}/agents/${second.id}`, { plugins: {} });
    const other = await api('POST', `${nsUrl}/secrets`, { name: uniqueName('s'), value: canaries[2] });
    await stopOcc();
    await receiver.up();
    receiver.loseNextAck = true;
    collector = newCollector();
    collector.start();
    await waitFor(
      'an export refused by an OCC that is down',
      async () => collector!.failures.export,
      (n) => n >= 2,
    );
    expect(readFileSync(cursorFile, 'utf8')).toBe(cursorAtStop);

    // OCC starts again on the same database; actions go on, deletes included.
    await startOcc();
    await api('DELETE', `${nsUrl}/agents/${second.id}`);
    await api('DELETE', agentUrl);
    await api('DELETE', `${nsUrl}/secrets/${other.id}`);
    await api('POST', `${nsUrl}/secrets`, { name: uniqueName('s'), value: 'after-restart' });
    await allDelivered();
    await collector.stop();

    const events = delivered();
    const table = await tableIds();
    // None lost: every event of the table arrived; nothing arrived that the table does not hold.
    expect([...new Set(events.map((e) => e.id))].sort()).toEqual([...table].sort());
    // At least once: the lost acknowledgement made the collector send one page again.
    expect(events.length).toBeGreaterThan(table.length);
    // In order: first arrivals are the table's (transaction, seq) order, hence also per resource.
    const firstArrivals = [...new Set(events.map((e) => e.id))];
    expect(firstArrivals).toEqual(table);
    const { rows } = await database.db.query<{ id: string; resource_id: string | null }>('SELECT id, resource_id FROM audit_events ORDER BY seq');
    const perResource = (ids: string[], resourceOf: Map<string, string | null>) => {
      const out = new Map<string, string[]>();
      for (const id of ids) {
        const r = resourceOf.get(id);
        if (r) out.set(r, [...(out.get(r) ?? []), id]);
      }
      return out;
    };
    const resourceOf = new Map(rows.map((r) => [r.id, r.resource_id]));
    expect(perResource(firstArrivals, resourceOf)).toEqual(
      perResource(
        rows.map((r) => r.id),
        resourceOf,
      ),
    );
    // The actions of the test are all there, across the outage and the restart.
    const actionsOf = (id: string) => events.filter((e) => e.resource?.id === id).map((e) => e.action);
    expect([...new Set(actionsOf(agent.id))]).toEqual(expect.arrayContaining(['agents.create', 'agents.update', 'agents.deploy', 'agents.stop', 'agents.delete']));
    expect([...new Set(actionsOf(secret.id))]).toEqual(['secrets.create', 'secrets.update']);
    expect([...new Set(actionsOf(other.id))]).toEqual(['secrets.create', 'secrets.delete']);
    // No Secret value in anything the receiver got.
    const text = receiver.lines.join('\n');
    expect(text).toContain(secret.id);
    for (const canary of [...canaries, adminKey]) expect(text).not.toContain(canary);
  });
});
