import type { IamRepository } from '../../core/ports/iam-repository.ts';
import type { Queryable } from '../database.ts';
import { iamAuthenticate } from './iam-authenticate.ts';
import { iamAccessControl } from './iam-access-control.ts';
import { iamPrincipals } from './iam-principals.ts';
import { iamSignInRules } from './iam-sign-in-rules.ts';

export function iamRepository(q: Queryable): IamRepository {
  return { ...iamAuthenticate(q), ...iamPrincipals(q), ...iamAccessControl(q), ...iamSignInRules(q) };
}
