import { randomUUID } from 'node:crypto';
import { ID_PREFIXES, type IdKind } from '@occ/contracts';

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomUUID()}`;
}
