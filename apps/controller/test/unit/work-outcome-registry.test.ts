import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  DeploymentStatusSchema,
  STARTUP_FAILURE_CODES,
  STORED_REASON_CODES,
  WORK_OUTCOMES,
  isWorkReasonCode,
  pendingReasonCode,
  runtimeFailureCode,
  type AgentRevision,
} from '@occ/contracts';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { RUNTIME_START_DENIALS } from '../../src/core/ports/runtime-start.ts';
import type { WorkItem } from '../../src/core/ports/work-queue.ts';
import { projectStatus } from '../../src/core/use-cases/deployments.ts';
import { START_REFUSALS } from '../../src/drivers/compute/runtime-contract/start-refusal.ts';
import { SSH_FAILURES } from '../../src/drivers/compute/ssh/ssh-host.ts';

const ROOT = join(import.meta.dirname, '../../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });

// Where reason codes are written: every SCREAMING_SNAKE string literal there is one.
const CODE_FILES = [...sources('apps/controller/src/worker'), ...sources('apps/controller/src/state/work-queue'), 'apps/controller/src/core/ports/work-queue.ts'];
const LITERAL = /'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g;
// What a ComputeDriver reports: the codes on its `failedPrepare('CODE')` (runtime-contract/prepare-result.ts), `reason = …` and `state: 'pending'` lines.
const COMPUTE_LINE = /failedPrepare\(|\breason = |state: 'pending'/;
const computeCodes = (text: string) =>
  text
    .split('\n')
    .filter((line) => COMPUTE_LINE.test(line))
    .flatMap((line) => [...line.matchAll(LITERAL)].map((m) => m[1]!));

const usedInWorker = new Set(CODE_FILES.flatMap((f) => [...read(f).matchAll(LITERAL)].map((m) => m[1]!)));
// A start that did not happen fails prepare with the denial's or refusal's code; an SSH host that
// could not be used fails it with its host failure's code (ssh/index.ts, `onHost`).
const startFailures = [...Object.keys(RUNTIME_START_DENIALS), ...Object.keys(START_REFUSALS), ...Object.keys(SSH_FAILURES)];
const usedByCompute = new Set([...sources('apps/controller/src/drivers/compute').flatMap((f) => computeCodes(read(f))), ...startFailures]);
const registry = Object.keys(WORK_OUTCOMES);

const docs = read('docs/deployments.md');
const table = docs.slice(docs.indexOf('<!-- reason-codes -->'), docs.indexOf('<!-- /reason-codes -->'));
const documented = [...table.matchAll(/^\| `([A-Z0-9_]+)` \| ([a-z]+) \|/gm)].map((m) => [m[1]!, m[2]!] as const);

describe('the work reason-code registry', () => {
  it('holds every code the worker, the work queue and the compute drivers write', () => {
    expect([...usedInWorker, ...usedByCompute].filter((code) => !isWorkReasonCode(code))).toEqual([]);
  });

  it('holds nothing nobody writes: each code is written by the worker, the queue, a compute driver or the runtime (or is a fallback)', () => {
    const fallbacks = [runtimeFailureCode(undefined), pendingReasonCode(undefined)];
    const written = new Set([...usedInWorker, ...usedByCompute, ...STARTUP_FAILURE_CODES, ...fallbacks]);
    // REVISION_UNSCHEDULABLE is part of the ComputeDriver contract (its port) for drivers that schedule.
    const port = read('apps/controller/src/core/ports/compute-driver.ts');
    expect(registry.filter((code) => !written.has(code) && !port.includes(code))).toEqual([]);
  });

  it('is documented in docs/deployments.md, one table row each with its outcome, nothing extra', () => {
    expect(documented.map(([code]) => code).sort()).toEqual([...registry].sort());
    expect(documented.filter(([code, kind]) => WORK_OUTCOMES[code as keyof typeof WORK_OUTCOMES] !== kind)).toEqual([]);
  });

  it('maps a compute code outside the registry to its fallback, and keeps a registered one', () => {
    expect([runtimeFailureCode('SOMETHING_NEW'), runtimeFailureCode('GATEWAY_START_FAILED'), runtimeFailureCode('REVISION_ACTIVATED')]).toEqual([
      'RUNTIME_FAILED',
      'GATEWAY_START_FAILED',
      'RUNTIME_FAILED',
    ]);
    expect([pendingReasonCode('soon'), pendingReasonCode('GATEWAY_STARTING'), pendingReasonCode('RUNTIME_FAILED')]).toEqual([
      'REVISION_INCOMPLETE',
      'GATEWAY_STARTING',
      'REVISION_INCOMPLETE',
    ]);
    expect(isWorkReasonCode('constructor')).toBe(false);
    expect(STORED_REASON_CODES).not.toContain('CLAIM_LOST');
  });
});

describe('deployment status of an overtaken revision', () => {
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (value) => !Number.isNaN(Date.parse(value)));
  const problems = (status: unknown) => [...Value.Errors(DeploymentStatusSchema, status)].map((e) => e.path);
  const revision = { id: 'rev_00000000-0000-4000-8000-000000000001', agentId: 'agt_00000000-0000-4000-8000-000000000001', revision: 1 } as AgentRevision;
  const item = (state: WorkItem['state'], reasonCode: WorkItem['reasonCode']) =>
    ({ state, reasonCode, attempts: 1, lastAttemptAt: '2026-01-01T00:00:00.000Z', availableAt: '2026-01-01T00:00:00.000Z', errorMessage: null, result: null }) as WorkItem;

  it.each([
    ['REVISION_SUPERSEDED', 'superseded'],
    ['REVISION_STOPPED', 'stopped'],
  ] as const)('a cancelled %s item is served as %s, with no error, and validates against the contract', (code, state) => {
    const status = projectStatus(revision, item('cancelled', code), null);
    expect(status).toMatchObject({ state, reasonCode: code, error: null, nextAttemptAt: null, warnings: [], active: false });
    expect(problems(status)).toEqual([]);
  });

  it('the contract refuses a reason code outside the registry', () => {
    const status = projectStatus(revision, item('succeeded', 'REVISION_ACTIVATED'), revision.id);
    expect(problems(status)).toEqual([]);
    expect(new Set(problems({ ...status, reasonCode: 'MADE_UP' }))).toEqual(new Set(['/reasonCode']));
    expect(new Set(problems({ ...status, state: 'cancelled' }))).toEqual(new Set(['/state']));
  });
});
