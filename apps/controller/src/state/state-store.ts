import type { StateStore, UnitOfWork } from '../core/ports/state.ts';
import type { Database, Queryable } from './database.ts';
import { LATEST_SCHEMA_VERSION, schemaVersion } from './migrate.ts';
import { agentRepository } from './repositories/agents.ts';
import { auditRepository } from './repositories/audit.ts';
import { configurationRepository } from './repositories/configurations.ts';
import { consoleSessionRepository } from './repositories/console-sessions.ts';
import { iamRepository } from './repositories/iam.ts';
import { installationRepository } from './repositories/installation.ts';
import { namespaceRepository } from './repositories/namespaces.ts';
import { revisionRepository } from './repositories/revisions.ts';
import { secretRepository } from './repositories/secrets.ts';
import { signInRepository } from './repositories/sign-in.ts';
import { sshHostRepository } from './repositories/ssh-hosts.ts';
import { workItemRepository } from './repositories/work-items.ts';

/** Every repository bound to one Queryable: the database itself, or one open transaction. */
export function unitOfWork(q: Queryable): UnitOfWork {
  return {
    installation: installationRepository(q),
    namespaces: namespaceRepository(q),
    secrets: secretRepository(q),
    configurations: configurationRepository(q),
    agents: agentRepository(q),
    iam: iamRepository(q),
    audit: auditRepository(q),
    revisions: revisionRepository(q),
    work: workItemRepository(q),
    sessions: consoleSessionRepository(q),
    sshHosts: sshHostRepository(q),
    signIn: signInRepository(q),
  };
}

export function createStateStore(db: Database): StateStore {
  const reads = unitOfWork(db);
  return {
    read: (fn) => fn(reads),
    autocommit: (fn) => fn(reads),
    transact: (fn) => db.transaction((tx) => fn(unitOfWork(tx))),
    async schemaStatus() {
      // schemaVersion reads 0 on any failure; probe first so an unreachable database throws.
      await db.query('SELECT 1');
      return { applied: await schemaVersion(db), expected: LATEST_SCHEMA_VERSION };
    },
  };
}
