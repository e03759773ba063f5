import type { InstallationRepository } from './installation-repository.ts';
import type { NamespaceRepository } from './namespace-repository.ts';
import type { SecretRepository } from './secret-repository.ts';
import type { ConfigurationRepository } from './configuration-repository.ts';
import type { AgentRepository } from './agent-repository.ts';
import type { IamRepository } from './iam-repository.ts';
import type { AuditRepository } from './audit-repository.ts';
import type { RevisionRepository } from './revision-repository.ts';
import type { WorkItemRepository } from './work-items.ts';
import type { ConsoleSessionRepository } from './console-session-repository.ts';
import type { SignInRepository } from './sign-in-repository.ts';
import type { SshHostRepository } from './ssh-host-repository.ts';

/** Every repository, bound to one transaction (or to plain reads). */
export interface UnitOfWork {
  installation: InstallationRepository;
  namespaces: NamespaceRepository;
  secrets: SecretRepository;
  configurations: ConfigurationRepository;
  agents: AgentRepository;
  iam: IamRepository;
  audit: AuditRepository;
  revisions: RevisionRepository;
  work: WorkItemRepository;
  sessions: ConsoleSessionRepository;
  /** Each Namespace's SSH host (docs/compute-ssh.md, "Hosts"). */
  sshHosts: SshHostRepository;
  /** Single sign-on: the provider, the identities it signed in, sign-ins under way (docs/sign-in.md). */
  signIn: SignInRepository;
}

/**
 * The persistence port. `transact` commits resource writes and their audit events
 * atomically: if any write (the audit event included) fails, nothing is kept.
 */
export interface StateStore {
  read<T>(fn: (uow: UnitOfWork) => Promise<T>): Promise<T>;
  transact<T>(fn: (uow: UnitOfWork) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` outside any transaction: each statement commits on its own. Only for a write that
   * is ONE statement carrying its own audit event (e.g. `agents.updateAtVersion`).
   */
  autocommit<T>(fn: (uow: UnitOfWork) => Promise<T>): Promise<T>;
  /** Applied and expected schema versions, for readiness. Throws when the database is unreachable. */
  schemaStatus(): Promise<{ applied: number; expected: number }>;
}
