import type { ControllerDeps } from '../deps.ts';
import { OccError } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import { hashApiKey, looksLikeApiKey } from '../iam/api-keys.ts';

const unauthenticated = () => new OccError('UNAUTHENTICATED', 'A valid API key is required (Authorization: Bearer occ_…).');

/** Resolves `Authorization: Bearer <key>` to a caller with its policy, in one database read. */
export async function authenticate(deps: ControllerDeps, authorization: string | undefined, requestId: string): Promise<Caller> {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization ?? '');
  const key = match?.[1];
  if (!key || !looksLikeApiKey(key)) throw unauthenticated();
  const hash = hashApiKey(key);
  const cacheKey = hash.toString('base64');
  let found = deps.authCache.get(cacheKey);
  if (!found) {
    const generation = deps.authCache.begin();
    found = (await deps.state.read((uow) => uow.iam.authenticate(hash))) ?? undefined;
    if (found) deps.authCache.set(cacheKey, found, generation);
  }
  if (!found) throw unauthenticated();
  return { principalId: found.principal.id, requestId, policy: found.policy };
}
