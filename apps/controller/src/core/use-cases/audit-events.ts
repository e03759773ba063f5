import type { AuditEvent } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import type { Caller } from '../iam/access.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';

export async function listAuditEvents(deps: ControllerDeps, _caller: Caller, query: ListQuery): Promise<Page<AuditEvent>> {
  const page = await deps.state.read((uow) =>
    pageVisible(
      'audit',
      query,
      (p) => uow.audit.scan(p),
      (e) => e.position,
      () => true,
    ),
  );
  return { items: page.items.map(({ position: _position, ...event }) => event), nextCursor: page.nextCursor };
}
