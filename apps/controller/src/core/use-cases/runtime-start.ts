import { CODEX_PAT_ENVIRONMENT } from '@occ/contracts';
import { can, type Caller } from '../iam/access.ts';
import { RuntimeStartDenied, type RevisionRef, type RuntimeStartAuthority, type StartSecrets } from '../ports/runtime-start.ts';
import type { SecretDriver } from '../ports/secret-driver.ts';
import type { SecretRecord } from '../ports/secret-repository.ts';
import type { StateStore } from '../ports/state.ts';

export interface RuntimeStartDeps {
  state: StateStore;
  secrets: SecretDriver;
}

/** One Secret a start opens: the variable it is delivered as, whether it is the Agent's codex_pat, its sealed record. */
interface Opened {
  variable: string;
  harnessAuth: boolean;
  record: SecretRecord;
}

/**
 * The control plane's answer to "may this revision's runtime start now, and with which Secrets?"
 * Asked at EVERY start (first start, supervised restart, recovery after an OCC restart), so a
 * revoked grant or a deleted Secret stops the next start instead of being remembered as allowed.
 * The Agent's codex_pat (the revision's `harnessAuth`) is rechecked exactly like a binding.
 */
export function createRuntimeStartAuthority(deps: RuntimeStartDeps): RuntimeStartAuthority {
  return {
    async withStartEnvironment(ref, use) {
      const opened = await deps.state.read(async (uow) => {
        const revision = await uow.revisions.get(ref.namespaceId, ref.agentId, ref.revisionId);
        const agent = revision ? await uow.agents.get(ref.namespaceId, ref.agentId) : null;
        if (!revision || !agent) throw new RuntimeStartDenied('REVISION_UNAVAILABLE');
        // The Agent's own principal uses the values; it must still be allowed to.
        const agentCaller: Caller = { principalId: agent.servicePrincipalId, requestId: 'runtime-start', policy: await uow.iam.loadPolicy(agent.servicePrincipalId) };
        const uses = Object.entries(revision.configuration.secretBindings)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([variable, { secretId }]) => ({ variable, secretId, harnessAuth: false }));
        if (revision.harnessAuth) uses.unshift({ variable: CODEX_PAT_ENVIRONMENT, secretId: revision.harnessAuth.secretId, harnessAuth: true });
        const records: Opened[] = [];
        // Refused when it is referred to, checked again here: a binding and a host saved at once cannot both pass.
        const hostKey = (await uow.sshHosts.get(ref.namespaceId))?.privateKeySecretId;
        for (const { variable, secretId, harnessAuth } of uses) {
          const record = await uow.secrets.get(ref.namespaceId, secretId);
          if (!record) throw new RuntimeStartDenied('SECRET_UNAVAILABLE', variable);
          if (secretId === hostKey) throw new RuntimeStartDenied('SECRET_RESERVED', variable);
          if (!can(agentCaller, 'operate', { kind: 'secret', id: secretId, namespaceId: ref.namespaceId })) throw new RuntimeStartDenied('SECRET_ACCESS_REVOKED', variable);
          records.push({ variable, harnessAuth, record });
        }
        return records;
      });
      return openAll(deps.secrets, ref, opened, { variables: {}, harnessAuth: null }, use);
    },
  };
}

/** Opens each sealed value inside the previous one's withValue, so none outlives `use`. */
function openAll<T>(driver: SecretDriver, ref: RevisionRef, remaining: Opened[], secrets: StartSecrets, use: (secrets: StartSecrets) => Promise<T>): Promise<T> {
  const [next, ...rest] = remaining;
  if (!next) return use(Object.freeze({ variables: Object.freeze({ ...secrets.variables }), harnessAuth: secrets.harnessAuth && Object.freeze({ ...secrets.harnessAuth }) }));
  const { variable, harnessAuth, record } = next;
  return driver.withValue(record, { namespaceId: ref.namespaceId, secretId: record.id }, (value) =>
    openAll(
      driver,
      ref,
      rest,
      harnessAuth ? { ...secrets, harnessAuth: { method: 'codex_pat', value } } : { ...secrets, variables: { ...secrets.variables, [variable]: value } },
      use,
    ),
  );
}
