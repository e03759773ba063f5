import type { AccessBinding, ApiKey, Principal, Restriction, Role, CreateAccessBindingBody, CreateRestrictionBody, Permission, SignInRule } from '@occ/contracts';
import type { PrincipalAccess } from '../iam/principal-access.ts';
import type { PageRequest } from './namespace-repository.ts';

export interface AuthenticatedPrincipal {
  principal: Principal;
  policy: PrincipalAccess;
  /** When the presented key stops being valid. */
  keyExpiresAt: Date;
}

/** Sign-in rules (docs/sign-in.md) and the bindings they grant; kept with IAM so the authentication cache hears of every change. */
export interface SignInRuleMethods {
  insertSignInRule(r: Omit<SignInRule, 'createdAt'>): Promise<SignInRule>;
  getSignInRule(id: string): Promise<SignInRule | null>;
  scanSignInRules(page: PageRequest): Promise<SignInRule[]>;
  /** Every rule (a handful; matched against a person's claims at each sign-in and refresh). */
  allSignInRules(): Promise<SignInRule[]>;
  /** The rule and, with it, every binding it granted. */
  deleteSignInRule(id: string): Promise<boolean>;
  /** Every rule-granted binding of everyone (the provider that vouched for them was replaced or removed); answers how many. */
  deleteAllSignInBindings(): Promise<number>;
  /** Makes the principal's rule-granted bindings exactly those of `ruleIds`; answers what changed (rule ids). */
  syncSignInBindings(principalId: string, ruleIds: readonly string[]): Promise<{ granted: string[]; revoked: string[] }>;
}

export interface IamRepository extends SignInRuleMethods {
  /** One round trip: the live (unexpired, unrevoked) key's principal and its whole policy. */
  authenticate(keyHash: Uint8Array): Promise<AuthenticatedPrincipal | null>;
  loadPolicy(principalId: string): Promise<PrincipalAccess>;

  insertPrincipal(p: { id: string; kind: Principal['kind']; name: string; namespaceId?: string; agentId?: string }): Promise<Principal>;
  getPrincipal(id: string): Promise<Principal | null>;
  scanPrincipals(page: PageRequest): Promise<Principal[]>;
  deletePrincipal(id: string): Promise<boolean>;

  insertApiKey(k: { id: string; principalId: string; name: string; keyHash: Uint8Array; prefix: string; expiresAt: Date }): Promise<ApiKey>;
  scanApiKeys(principalId: string, page: PageRequest): Promise<ApiKey[]>;
  revokeApiKey(principalId: string, keyId: string): Promise<boolean>;

  insertRole(r: { id: string; name: string; permissions: Permission[] }): Promise<Role>;
  getRole(id: string): Promise<Role | null>;
  findRoleByName(name: string): Promise<Role | null>;
  scanRoles(page: PageRequest): Promise<Role[]>;
  roleInUse(id: string): Promise<boolean>;
  deleteRole(id: string): Promise<boolean>;

  insertBinding(b: CreateAccessBindingBody & { id: string }): Promise<AccessBinding>;
  getBinding(id: string): Promise<AccessBinding | null>;
  scanBindings(page: PageRequest): Promise<AccessBinding[]>;
  deleteBinding(id: string): Promise<boolean>;
  /** Removes bindings and restrictions that name one exact resource (the resource is going away). */
  deleteGrantsOnResource(kind: string, id: string): Promise<string[]>;

  insertRestriction(r: CreateRestrictionBody & { id: string }): Promise<Restriction>;
  getRestriction(id: string): Promise<Restriction | null>;
  scanRestrictions(page: PageRequest): Promise<Restriction[]>;
  deleteRestriction(id: string): Promise<boolean>;
}
