import { scrubPath } from '../../src/http/error-mapping.ts';
import fc from 'fast-check';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, UpdateAgentBodySchema, type RouteContract } from '@occ/contracts';
import { openclawCuratedCatalog, pluginPolicyRulesById, uncataloguedOpenClawSelections } from '@occ/policy';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, buildWorld, uniqueName, type World } from '../../../../test-support/world.ts';
import { anyPluginMapArb, approverArb, garbageBodyArb, mutatedBodyArb, sent, validPluginMapArb, VALID_BODIES, type SentBody } from '../../../../test-support/arbitraries.ts';
import { bodyRoutes, fixtureFor, responseProblems } from '../../../../test-support/route-fixtures.ts';

/**
 * [V-3] Property-based tests over EVERY route with a body, derived from the route table:
 * arbitrary JSON and mutations of valid bodies. The body schema of the route's contract is the
 * oracle: a body it rejects must answer 400 INVALID_REQUEST before anything else runs ([V-1]);
 * nothing may answer 5xx; every 4xx is the error envelope; every 400 names a field of the body.
 */
const FC = { numRuns: 100, interruptAfterTimeLimit: 15_000 };
const routes = bodyRoutes();
/**
 * Deploy's optional body (dry run, rollback), beside the shared arbitraries: mostly dry runs, and
 * revision numbers or ids that may not exist (404 at /fromRevision is a precise answer too).
 */
const BODIES: typeof VALID_BODIES = {
  ...VALID_BODIES,
  deployAgent: () =>
    fc
      .record({
        dryRun: fc.option(fc.boolean(), { nil: undefined }),
        fromRevision: fc.option(fc.oneof(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.constant('rev_00000000-0000-4000-8000-000000000000')), { nil: undefined }),
      })
      .map((b) => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined))),
  // Well-formed or not, a key no one was issued: the exchange then answers 401, never 5xx.
  createSession: () => fc.record({ apiKey: fc.oneof(fc.constant(`occ_${'z'.repeat(43)}`), fc.string({ minLength: 1, maxLength: 200 })) }),
};
const statusOf = (code: string) => (ERROR_STATUS as Record<string, number>)[code];

describe('[V-3] body properties over every body route', () => {
  let t: TestController;
  let w: World;
  beforeAll(async () => {
    t = await startTestController();
    w = await buildWorld(t);
  });
  afterAll(async () => t?.close());

  const check = async (route: RouteContract, b: SentBody) => {
    const { url } = fixtureFor(route, w);
    const res = await t.request({ method: route.method, url, body: b.raw });
    const problems = responseProblems(res, b.parsed, statusOf);
    const schemaValid = Value.Check(route.schemas.body!, b.parsed);
    if (!schemaValid && !(res.status === 400 && res.body?.error?.code === 'INVALID_REQUEST')) {
      problems.push(`a body its schema rejects answered ${res.status} ${res.raw.slice(0, 200)}`);
    }
    const details: { path: string; code: string }[] = res.body?.error?.details ?? [];
    if (b.expect && !details.some((d) => d.path === b.expect!.path && d.code === b.expect!.code)) {
      problems.push(`expected detail ${JSON.stringify(b.expect)}, got ${JSON.stringify(details).slice(0, 300)}`);
    }
    expect(problems, `${route.operationId} / ${b.label}: ${b.raw.slice(0, 300)}`).toEqual([]);
  };

  it('has a valid-body arbitrary for every body route in the route table', () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter((r) => !BODIES[r.operationId]).map((r) => r.operationId)).toEqual([]);
  });

  it('the valid-body arbitraries produce bodies their schemas accept (the oracle is sound)', () => {
    for (const route of routes) {
      const arb = BODIES[route.operationId];
      if (!arb) continue;
      for (const body of fc.sample(arb(w), 30)) {
        expect(Value.Check(route.schemas.body!, JSON.parse(JSON.stringify(body))), `${route.operationId} ${JSON.stringify(body).slice(0, 200)}`).toBe(true);
      }
    }
  });

  for (const route of routes) {
    const keys = Object.keys((route.schemas.body!.properties ?? {}) as object);
    describe(`${route.method} ${route.path} (${route.operationId})`, () => {
      it('[V-3] [V-1] never answers 5xx to arbitrary JSON; a schema violation is 400 naming a field inside the body', async () => {
        await fc.assert(
          fc.asyncProperty(garbageBodyArb(keys), (b) => check(route, b)),
          FC,
        );
      });

      it('[V-3] mutations of a valid body (missing, unknown, wrong type, boundary, plugin maps) are answered precisely', async () => {
        const valid = BODIES[route.operationId];
        expect(valid, `no valid-body arbitrary for ${route.operationId}`).toBeDefined();
        await fc.assert(
          fc.asyncProperty(mutatedBodyArb(route.schemas.body!, valid!(w)), (b) => check(route, b)),
          FC,
        );
      });
    });
  }

  it('[V-3] a plugin key shaped like a credential is refused with its pointer scrubbed, still a detail inside the body (the counterexample CI found)', async () => {
    const agent = await adminCreate(t, `/namespaces/${w.nsA}/agents`, { name: uniqueName('pm'), configurationId: w.cfgA, harness: 'openclaw' });
    const body = { plugins: { 'at-A0.a-0.a@0': { enabled: false } } };
    const res = await t.request({ method: 'PATCH', url: `/namespaces/${w.nsA}/agents/${agent.id}`, body });
    expect(res.status, res.raw).toBe(400);
    expect(res.raw).not.toContain('at-A0.a-0.a');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['/plugins/[redacted]']);
    expect(responseProblems(res, body, statusOf)).toEqual([]);
  });

  it.each([
    ['openclaw', 'openclaw-curated'],
    ['codex', 'codex-hosted'],
  ] as const)('[V-3] [V-4] [V-5] any plugin map on a %s Agent: the HTTP answer is exactly what the shape schema and the %s rules say', async (harness, driverId) => {
    const agent = await adminCreate(t, `/namespaces/${w.nsA}/agents`, { name: uniqueName('pm'), configurationId: w.cfgA, harness });
    const url = `/namespaces/${w.nsA}/agents/${agent.id}`;
    const rules = pluginPolicyRulesById[driverId];
    const maps = fc.oneof(anyPluginMapArb, validPluginMapArb(harness), validPluginMapArb(harness === 'codex' ? 'openclaw' : 'codex'));
    const bodyArb = fc.record({ plugins: maps, pluginApprovers: fc.option(fc.array(approverArb, { maxLength: 3 }), { nil: undefined }) }).map((b) => sent(b, 'plugin map'));
    await fc.assert(
      fc.asyncProperty(bodyArb, async (b) => {
        const res = await t.request({ method: 'PATCH', url, body: b.raw });
        const problems = responseProblems(res, b.parsed, statusOf);
        const body = b.parsed as { plugins: any; pluginApprovers?: any };
        if (!Value.Check(UpdateAgentBodySchema, body)) {
          if (res.status !== 400) problems.push(`shape-invalid map answered ${res.status}`);
        } else {
          const staticViolations = rules.validatePolicies(body.plugins, body.pluginApprovers);
          // Past the static rules, an OpenClaw map is also checked against the curated catalog.
          const uncatalogued = staticViolations.length === 0 && harness === 'openclaw' ? uncataloguedOpenClawSelections(openclawCuratedCatalog(), body.plugins) : [];
          // A credential-shaped plugin key is scrubbed from the pointers the server sends back.
          const violations = [...staticViolations, ...uncatalogued].map((v) => ({ path: scrubPath(v.path), code: v.code }));
          if (violations.length === 0) {
            if (res.status !== 200) problems.push(`a map the driver accepts answered ${res.status} ${res.raw.slice(0, 200)}`);
            else if (!deepEqual(res.body.data.plugins, body.plugins)) problems.push('stored map differs from the map sent');
          } else if (res.status !== 400 || !deepEqual(sortDetails(res.body.error.details), sortDetails(violations.slice(0, 32)))) {
            problems.push(`driver violations ${JSON.stringify(violations).slice(0, 200)} answered ${res.status} ${res.raw.slice(0, 200)}`);
          }
        }
        expect(problems, b.raw.slice(0, 300)).toEqual([]);
      }),
      FC,
    );
  });
});

const sortDetails = (d: { path: string; code: string }[] = []) => d.map((x) => `${x.path} ${x.code}`).sort();
const deepEqual = (a: unknown, b: unknown) => {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
};
