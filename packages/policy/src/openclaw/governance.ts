import { isJsonObject } from '@occ/contracts';
import { isStringList } from '../json.ts';
import type { OpenClawConfig } from './native-config.ts';

/**
 * OpenClaw's core tools with which an agent could rewrite its own governance: install, enable or
 * update plugins (`plugins`, `openclaw`, `gateway`'s update), read or request secrets (`secrets`),
 * create skills (`skill_workshop`) or schedule work nobody configured (`automations`). Denied to
 * the agent unless the Configuration grants one by name in `tools.allow` or `tools.alsoAllow`
 * (docs/security.md, "What an agent may change").
 */
export const GOVERNANCE_TOOLS: readonly string[] = Object.freeze(['plugins', 'openclaw', 'gateway', 'secrets', 'skill_workshop', 'automations']);

/** The governance tools the Configuration does not grant explicitly, in GOVERNANCE_TOOLS order. */
export function governanceDenials(baseConfig: OpenClawConfig): string[] {
  const tools = isJsonObject(baseConfig.tools) ? baseConfig.tools : {};
  const granted = new Set([...(isStringList(tools.allow) ? tools.allow : []), ...(isStringList(tools.alsoAllow) ? tools.alsoAllow : [])].map((name) => name.trim().toLowerCase()));
  return GOVERNANCE_TOOLS.filter((name) => !granted.has(name));
}
