import { createHash, createHmac } from 'node:crypto';

const LABEL = 'occ/codex-app-server-credential/v1';

/**
 * The gateway's bearer credential for the dedicated app-server ([G-6]): HMAC-SHA256 keyed by the
 * Agent revision's transport secret over the revision id and this startup's id. Both sides derive
 * it; a restart draws a new startup id, so a gateway holding the old credential cannot
 * authenticate to the restarted app-server ([G-8]).
 */
export function appServerCredential(transportSecret: string, revisionId: string, startupId: string): string {
  if (transportSecret.length < 32) throw new RangeError('The transport secret is too short.');
  return createHmac('sha256', transportSecret).update(`${LABEL}\0${revisionId}\0${startupId}`).digest('hex');
}

/** What the app-server is told to accept (`--ws-token-sha256`): never the credential itself, which would show in argv. */
export function credentialDigest(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}
