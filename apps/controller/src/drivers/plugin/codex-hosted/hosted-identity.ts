import { PluginDiscoveryError } from '../../../core/ports/plugin-driver.ts';
import { boundedJsonRequest, type HttpsTarget } from './bounded-https.ts';
import { invalid, optionalBoolean, record, string } from './wire.ts';

/** Same bound as the discovery request's `accessToken`. */
const MAX_PAT_LENGTH = 16384;
/** `at-` then printable ASCII only: no whitespace or control characters can reach a header. */
const PAT = /^at-[\x21-\x7e]+$/u;
const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,255}$/u;

const WHOAMI_PATH = 'api/accounts/v1/user-auth-credential/whoami';

/** The account a credential belongs to, as the identity service says: never from the caller. */
export interface HostedIdentity {
  accountId: string;
  fedramp: boolean;
}

/** The PAT's form, checked before any network I/O; a malformed one is `credential_malformed` (nothing was asked). */
export function checkPatForm(credential: string | undefined): string {
  if (credential === undefined || credential.length > MAX_PAT_LENGTH || !PAT.test(credential)) {
    throw new PluginDiscoveryError('credential_malformed');
  }
  return credential;
}

/** `GET …/whoami` with the PAT: the ChatGPT account id and whether it is FedRAMP. */
export async function fetchIdentity(target: HttpsTarget, identityBase: URL, credential: string, signal: AbortSignal): Promise<HostedIdentity> {
  const body = record(
    await boundedJsonRequest(
      target,
      { method: 'GET', url: new URL(WHOAMI_PATH, identityBase), headers: { authorization: `Bearer ${credential}` }, forbidden: [credential] },
      signal,
    ),
  );
  const accountId = string(body.chatgpt_account_id);
  if (!ACCOUNT_ID.test(accountId)) return invalid();
  return { accountId, fedramp: optionalBoolean(body.chatgpt_account_is_fedramp) ?? false };
}

/** The headers every catalog call carries. */
export function catalogHeaders(credential: string, identity: HostedIdentity): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${credential}`,
    'chatgpt-account-id': identity.accountId,
    'oai-product-sku': 'codex',
  };
  if (identity.fedramp) headers['x-openai-fedramp'] = 'true';
  return headers;
}
