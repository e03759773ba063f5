import { DEFAULT_GROUPS_CLAIM, type CreateSignInRuleBody, type SignInRule } from '@occ/contracts';
import { recordAudit } from '../audit/record.ts';
import type { ControllerDeps } from '../deps.ts';
import { OccError, notFound } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import { pageVisible, type ListQuery, type Page } from '../pagination.ts';
import { bindingScope } from './iam-access-control.ts';

/**
 * Sign-in rules (docs/sign-in.md, "Rules"): an IAM resource like an access binding, whose
 * principal is "whoever's ID token holds this claim value". A rule's scope is checked exactly as a
 * binding's; deleting it removes, in the same transaction, every binding it granted.
 */
export async function createSignInRule(deps: ControllerDeps, caller: Caller, body: CreateSignInRuleBody): Promise<SignInRule> {
  return deps.state.transact(async (uow) => {
    const role = await uow.iam.getRole(body.roleId);
    if (!role) throw new OccError('NOT_FOUND', 'Role not found.', [{ path: '/roleId', code: 'INVALID_VALUE' }]);
    const namespaceId = await bindingScope(uow, body, role);
    const claim = body.claim ?? (await uow.signIn.getProvider())?.groupsClaim ?? DEFAULT_GROUPS_CLAIM;
    const rule = await uow.iam.insertSignInRule({
      id: newId('sign_in_rule'),
      claim,
      value: body.value,
      roleId: body.roleId,
      namespaceId: namespaceId ?? null,
      resource: body.resource ?? null,
    });
    await recordAudit(uow, caller, {
      action: 'sign_in_rules.create',
      namespaceId: rule.namespaceId,
      resource: { kind: 'sign_in_rule', id: rule.id },
      details: { claim: rule.claim, value: rule.value, roleId: rule.roleId, target: rule.resource },
    });
    return rule;
  });
}

export const listSignInRules = (deps: ControllerDeps, _c: Caller, q: ListQuery): Promise<Page<SignInRule>> =>
  deps.state.read((uow) =>
    pageVisible(
      'sign_in_rules',
      q,
      (p) => uow.iam.scanSignInRules(p),
      (r) => r.id,
      () => true,
    ),
  );

export async function getSignInRule(deps: ControllerDeps, _c: Caller, id: string): Promise<SignInRule> {
  const rule = await deps.state.read((uow) => uow.iam.getSignInRule(id));
  if (!rule) throw notFound('Sign-in rule');
  return rule;
}

export async function deleteSignInRule(deps: ControllerDeps, caller: Caller, id: string): Promise<void> {
  await deps.state.transact(async (uow) => {
    const rule = await uow.iam.getSignInRule(id);
    if (!rule) throw notFound('Sign-in rule');
    await uow.iam.deleteSignInRule(id);
    await recordAudit(uow, caller, {
      action: 'sign_in_rules.delete',
      namespaceId: rule.namespaceId,
      resource: { kind: 'sign_in_rule', id },
      details: { claim: rule.claim, value: rule.value, roleId: rule.roleId },
    });
  });
}
