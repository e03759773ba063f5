import type { ApiKey, CreateApiKeyBody, CreatePrincipalBody, Principal } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { conflict, notFound } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import { generateApiKey } from '../iam/api-keys.ts';
import { newId } from '../ids.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';

const all = () => true;

export async function createPrincipal(deps: ControllerDeps, caller: Caller, body: CreatePrincipalBody): Promise<Principal> {
  return deps.state.transact(async (uow) => {
    const principal = await uow.iam.insertPrincipal({ id: newId('principal'), kind: body.kind, name: body.name });
    await recordAudit(uow, caller, { action: 'principals.create', resource: { kind: 'principal', id: principal.id }, details: { kind: body.kind, name: body.name } });
    return principal;
  });
}

export function listPrincipals(deps: ControllerDeps, _caller: Caller, query: ListQuery): Promise<Page<Principal>> {
  return deps.state.read((uow) =>
    pageVisible(
      'principals',
      query,
      (p) => uow.iam.scanPrincipals(p),
      (p) => p.id,
      all,
    ),
  );
}

export async function getPrincipal(deps: ControllerDeps, _caller: Caller, id: string): Promise<Principal> {
  const principal = await deps.state.read((uow) => uow.iam.getPrincipal(id));
  if (!principal) throw notFound('Principal');
  return principal;
}

/** Agent service principals live and die with their Agent; a caller cannot delete itself. */
export async function deletePrincipal(deps: ControllerDeps, caller: Caller, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const principal = await uow.iam.getPrincipal(id);
    if (!principal) throw notFound('Principal');
    if (principal.agentId) throw conflict("An Agent's service principal is deleted with its Agent.");
    if (principal.id === caller.principalId) throw conflict('A principal cannot delete itself.');
    await uow.iam.deletePrincipal(id);
    await recordAudit(uow, caller, { action: 'principals.delete', resource: { kind: 'principal', id }, details: { name: principal.name } });
  });
}

export async function createApiKey(deps: ControllerDeps, caller: Caller, principalId: string, body: CreateApiKeyBody): Promise<{ apiKey: ApiKey; key: string }> {
  return deps.state.transact(async (uow) => {
    const principal = await uow.iam.getPrincipal(principalId);
    if (!principal) throw notFound('Principal');
    if (principal.agentId) throw conflict("An Agent's service principal cannot hold API keys.");
    // A key would keep the access a person's groups gave them after they left the groups (docs/sign-in.md).
    if (await uow.signIn.identityLinked(principalId))
      throw conflict('This principal signs in with single sign-on: its access follows its groups, which an API key would outlive. Give automation a service principal.');
    const generated = generateApiKey();
    const expiresAt = new Date(deps.now().getTime() + (body.expiresInDays ?? 30) * 86_400_000);
    const apiKey = await uow.iam.insertApiKey({ id: newId('api_key'), principalId, name: body.name, keyHash: generated.hash, prefix: generated.prefix, expiresAt });
    await recordAudit(uow, caller, { action: 'api_keys.create', resource: { kind: 'api_key', id: apiKey.id }, details: { principalId, expiresAt: apiKey.expiresAt } });
    return { apiKey, key: generated.key };
  });
}

export async function listApiKeys(deps: ControllerDeps, _caller: Caller, principalId: string, query: ListQuery): Promise<Page<ApiKey>> {
  return deps.state.read(async (uow) => {
    if (!(await uow.iam.getPrincipal(principalId))) throw notFound('Principal');
    return pageVisible(
      `api_keys:${principalId}`,
      query,
      (p) => uow.iam.scanApiKeys(principalId, p),
      (k) => k.id,
      all,
    );
  });
}

export async function revokeApiKey(deps: ControllerDeps, caller: Caller, principalId: string, keyId: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    if (!(await uow.iam.revokeApiKey(principalId, keyId))) throw notFound('API key');
    await recordAudit(uow, caller, { action: 'api_keys.revoke', resource: { kind: 'api_key', id: keyId }, details: { principalId } });
  });
}
