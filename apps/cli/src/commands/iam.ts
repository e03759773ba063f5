import type { Command } from 'commander';
import { registerBindingCommands } from './iam/bindings.ts';
import { registerKeyCommands } from './iam/keys.ts';
import { registerPrincipalCommands } from './iam/principals.ts';
import { registerRestrictionCommands } from './iam/restrictions.ts';
import { registerRoleCommands } from './iam/roles.ts';
import { registerSignInRuleCommands } from './iam/sign-in-rules.ts';

/** Identity and access control: principals, their API keys, roles, bindings, sign-in rules and restrictions. */
export function registerIamCommands(program: Command): void {
  registerPrincipalCommands(program);
  registerKeyCommands(program);
  registerRoleCommands(program);
  registerBindingCommands(program);
  registerSignInRuleCommands(program);
  registerRestrictionCommands(program);
}
