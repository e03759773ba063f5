import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeController } from '../apps/controller/src/composition/compose.ts';
import { bootstrapInstallation } from '../apps/controller/src/core/use-cases/installation.ts';
import { openBenchDatabase } from './bench-database.ts';
import { fakePluginItem, startFakeHostedCatalog } from '../test-support/fake-hosted-catalog.ts';

const PAT = `at-${randomBytes(24).toString('hex')}`;

/** One HTTPS GET as a direct client of the hosted catalog would make it (keep-alive agent). */
function directGet(url: string, headers: Record<string, string>, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${url} → ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function time(iterations: number, run: () => Promise<void>): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < Math.min(20, iterations); i += 1) await run(); // warm-up (TLS sessions, JIT)
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

/**
 * Page one of hosted (Codex) plugin discovery through OCC — API key, IAM, body schema, the
 * driver's identity lookup and list call over TLS, mapping, echo guard, response schema —
 * against the same two upstream calls (whoami + list) made directly, in the same run.
 */
export async function benchDiscovery(iterations = Number(process.env.BENCH_ITERATIONS ?? 300)): Promise<void> {
  const fake = await startFakeHostedCatalog();
  const dir = mkdtempSync(join(tmpdir(), 'occ-bench-discovery-'));
  const saved = { ...process.env };
  try {
    fake.accounts.set(PAT, { accountId: 'acct_bench' });
    for (let i = 0; i < 60; i += 1) fake.plugins.push(fakePluginItem(`plugin${String(i).padStart(2, '0')}`));
    writeFileSync(join(dir, 'ca.pem'), fake.ca);
    // The production wiring: the codex-hosted driver reads these at startup.
    process.env.OCC_CODEX_CATALOG_URL = fake.catalogBaseUrl;
    process.env.OCC_CODEX_IDENTITY_URL = fake.identityBaseUrl;
    process.env.OCC_CODEX_CA_FILE = join(dir, 'ca.pem');
    const { database, dispose } = await openBenchDatabase();
    const controller = await composeController({ database, secretKey: randomBytes(32) });
    try {
      const boot = await bootstrapInstallation(controller.deps);
      if (!boot.created) throw new Error('bench database already bootstrapped');
      const base = await controller.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `${base}/namespaces/${boot.defaultNamespaceId}/agents/plugins`;
      const body = JSON.stringify({ harness: 'codex', accessToken: PAT });
      const headers = { authorization: `Bearer ${boot.adminKey}`, 'content-type': 'application/json' };
      const throughOcc = await time(iterations, async () => {
        const res = await fetch(url, { method: 'POST', headers, body });
        if (res.status !== 200) throw new Error(`discovery → ${res.status}`);
        const page = (await res.json()) as { data: { plugins: unknown[] } };
        if (page.data.plugins.length !== 20) throw new Error('expected a full first page');
      });

      const agent = new Agent({ ca: fake.ca, keepAlive: true });
      const upstream = { authorization: `Bearer ${PAT}` };
      const direct = await time(iterations, async () => {
        await directGet(new URL('api/accounts/v1/user-auth-credential/whoami', fake.identityBaseUrl).href, upstream, agent);
        await directGet(
          new URL('ps/plugins/list?scope=GLOBAL&limit=20', fake.catalogBaseUrl).href,
          { ...upstream, 'chatgpt-account-id': 'acct_bench', 'oai-product-sku': 'codex' },
          agent,
        );
      });
      agent.destroy();

      const f = (n: number) => n.toFixed(2).padStart(8);
      console.log(`\nHosted plugin discovery, page one (20 of 60 entries), ${iterations} sequential requests each, fake hosted catalog over TLS on loopback, ${database.kind}`);
      console.log('                       p50 ms   p99 ms  mean ms');
      console.log(`through OCC          ${f(throughOcc.p50)} ${f(throughOcc.p99)} ${f(throughOcc.mean)}`);
      console.log(`direct (whoami+list) ${f(direct.p50)} ${f(direct.p99)} ${f(direct.mean)}`);
      console.log(`overhead ratio (OCC/direct, p50): ${(throughOcc.p50 / direct.p50).toFixed(2)}   added p50: ${(throughOcc.p50 - direct.p50).toFixed(2)} ms`);
    } finally {
      await controller.close();
      await dispose();
    }
  } finally {
    process.env = saved;
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
