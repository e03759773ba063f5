/** Resource id prefixes: every id is its kind's prefix plus a UUIDv4 (`agt_…`, `rev_…`). */
export const ID_PREFIXES = {
  installation: 'ins',
  namespace: 'ns',
  secret: 'sec',
  configuration: 'cfg',
  agent: 'agt',
  agent_revision: 'rev',
  principal: 'prn',
  api_key: 'key',
  role: 'role',
  access_binding: 'bind',
  restriction: 'rst',
  audit_event: 'aud',
  request: 'req',
  work_item: 'wrk',
  console_session: 'ses',
  sign_in_rule: 'sir',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_${UUID_V4}$`;
}
