import { afterAll, beforeAll, expect } from 'vitest';
import { OccError } from '../../src/core/errors.ts';
import { newId } from '../../src/core/ids.ts';
import type { AuditEventWrite } from '../../src/core/ports/audit-repository.ts';
import type { StateStore, UnitOfWork } from '../../src/core/ports/state.ts';
import type { Database } from '../../src/state/database.ts';
import { createStateStore } from '../../src/state/state-store.ts';
import { createTestDatabase } from '../../../../test-support/test-database.ts';

export interface Fixture {
  db: Database;
  store: StateStore;
}

/** One migrated database per test file; tests isolate themselves by creating their own Namespaces. */
export function useStateStore(): Fixture {
  const fixture = {} as Fixture;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const created = await createTestDatabase();
    cleanup = created.cleanup;
    fixture.db = created.db;
    fixture.store = createStateStore(created.db);
  });
  afterAll(async () => {
    await cleanup?.();
  });
  return fixture;
}

export const unique = (label: string) => `${label}-${newId('request').slice(4, 12)}`;

export async function namespace(uow: UnitOfWork, name = unique('ns')) {
  return uow.namespaces.insert({ id: newId('namespace'), name });
}

export async function secret(uow: UnitOfWork, namespaceId: string, name = unique('sec'), sealedValue = 'sealed:v1') {
  return uow.secrets.insert({ id: newId('secret'), namespaceId, name, driverId: 'local', sealedValue });
}

export async function configuration(uow: UnitOfWork, namespaceId: string, secretBindings: Record<string, { secretId: string }> = {}, name = unique('cfg')) {
  return uow.configurations.insert({ id: newId('configuration'), namespaceId, name, values: { agents: { defaults: { model: 'x' } } }, secretBindings });
}

/** An Agent with its service principal, as the use case creates it. */
export async function agent(uow: UnitOfWork, namespaceId: string, configurationId: string, extra: { secretId?: string; name?: string } = {}) {
  const id = newId('agent');
  const principal = await uow.iam.insertPrincipal({ id: newId('principal'), kind: 'service', name: `agent:${id}`, namespaceId, agentId: id });
  return uow.agents.insert({
    id,
    namespaceId,
    name: extra.name ?? unique('agt'),
    harness: extra.secretId ? 'codex' : 'openclaw',
    servicePrincipalId: principal.id,
    configurationId,
    harnessAuth: extra.secretId ? { method: 'codex_pat', secretId: extra.secretId } : null,
    plugins: {},
    pluginApprovers: null,
  });
}

/** Asserts an OccError with this code; returns it for further checks. */
/** An audit event to append, a plain successful one unless `over` says otherwise. */
export const auditEvent = (over: Partial<AuditEventWrite> = {}): AuditEventWrite => ({
  id: newId('audit_event'),
  actorId: null,
  action: 'test.event',
  outcome: 'success',
  namespaceId: null,
  resource: null,
  requestId: null,
  details: {},
  ...over,
});

export async function expectOccError(promise: Promise<unknown>, code: string): Promise<OccError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OccError);
  expect((error as OccError).code).toBe(code);
  return error as OccError;
}

/** The SQLSTATE a rejected promise carries (driver error or StateError). */
export async function sqlStateOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  const e = error as { sqlState?: string; code?: string };
  return e.sqlState ?? e.code;
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
