import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, NameSchema, TimestampSchema } from '../common.ts';
import { BindingResourceSchema } from './iam.ts';

/**
 * Single sign-on (docs/sign-in.md): one OpenID provider per Installation, rules that turn the
 * ID token's groups into access, and the device grant `occ login --sso` uses.
 */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);
const UrlSchema = (description: string) => Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://[^\\s]+$', description });
const ClaimNameSchema = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_:./-]+$' });
const ScopeSchema = Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' });

export const DEFAULT_SIGN_IN_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
export const DEFAULT_GROUPS_CLAIM = 'groups';
export const DEFAULT_REFRESH_INTERVAL_SECONDS = 300;

/** PUT /sign-in/provider. Only the shape is checked here; the provider itself is asked at the first sign-in. */
export const PutSignInProviderBodySchema = Closed({
  /** The OpenID provider's issuer URL (https; plain http only on a loopback address). */
  issuer: UrlSchema('The issuer URL: https, or http on a loopback address.'),
  clientId: Type.String({ minLength: 1, maxLength: 255 }),
  /** A Secret holding the client secret: reserved for this use (no Agent, catalog or host receives it). */
  clientSecretId: IdSchema('secret'),
  /** OCC as browsers reach it; the redirect URI to register is this plus /sign-in/oidc/callback. */
  publicUrl: UrlSchema('OCC as browsers reach it (scheme, host, port; no path).'),
  scopes: Type.Optional(
    // No `uniqueItems`: checking it compares items deeply, and a deeply nested array overflowed the stack (a 500); duplicates are dropped instead.
    Type.Array(ScopeSchema, { minItems: 1, maxItems: 16, description: 'Default: openid profile email offline_access. Must include openid. A repeated scope counts once.' }),
  ),
  /** The claim sign-in rules match by default (a string or an array of strings in the ID token). */
  groupsClaim: Type.Optional(ClaimNameSchema),
  /** How often a session re-reads the person's groups from the provider: removed from a group, access ends within this. */
  refreshIntervalSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 3600 })),
});
export type PutSignInProviderBody = Static<typeof PutSignInProviderBodySchema>;

export const SignInProviderSchema = Closed({
  issuer: Type.String(),
  clientId: Type.String(),
  clientSecretId: IdSchema('secret'),
  publicUrl: Type.String(),
  /** What to register at the provider as the redirect (and post-logout: publicUrl + '/') URI. */
  redirectUri: Type.String(),
  scopes: Type.Array(Type.String()),
  groupsClaim: Type.String(),
  refreshIntervalSeconds: Type.Integer(),
  updatedAt: TimestampSchema,
});
export type SignInProvider = Static<typeof SignInProviderSchema>;

/** GET /sign-in: what a signed-out console or CLI may offer. */
export const SignInOptionsSchema = Closed({
  apiKey: Type.Literal(true),
  /** Null: no provider is configured. */
  oidc: Nullable(Closed({ issuer: Type.String(), browserPath: Type.Literal('/sign-in/oidc') })),
});
export type SignInOptions = Static<typeof SignInOptionsSchema>;

/**
 * A sign-in rule: a person whose ID token's `claim` holds `value` (or an array containing it) is
 * granted `roleId` at the rule's scope — the whole Installation, a Namespace, or one resource.
 */
export const CreateSignInRuleBodySchema = Closed({
  /** Default: the provider's groupsClaim when the rule is created (`groups` if none is configured). */
  claim: Type.Optional(ClaimNameSchema),
  value: Type.String({ minLength: 1, maxLength: 256 }),
  roleId: IdSchema('role'),
  namespaceId: Type.Optional(IdSchema('namespace')),
  resource: Type.Optional(BindingResourceSchema),
});
export type CreateSignInRuleBody = Static<typeof CreateSignInRuleBodySchema>;

export const SignInRuleSchema = Closed({
  id: IdSchema('sign_in_rule'),
  claim: Type.String(),
  value: Type.String(),
  roleId: IdSchema('role'),
  namespaceId: Nullable(IdSchema('namespace')),
  resource: Nullable(BindingResourceSchema),
  createdAt: TimestampSchema,
});
export type SignInRule = Static<typeof SignInRuleSchema>;

/** POST /sign-in/device: show the user code and the page; poll with the request id (a secret: only its holder signs in). */
export const DeviceSignInSchema = Closed({
  deviceRequestId: Type.String(),
  userCode: Type.String(),
  verificationUri: Type.String(),
  verificationUriComplete: Nullable(Type.String()),
  expiresAt: TimestampSchema,
  intervalSeconds: Type.Integer({ minimum: 1 }),
});
export type DeviceSignIn = Static<typeof DeviceSignInSchema>;

export const DEVICE_REQUEST_ID_PATTERN = '^occd_[A-Za-z0-9_-]{43}$';
export const PollDeviceSignInBodySchema = Closed({ deviceRequestId: Type.String({ maxLength: 64, pattern: DEVICE_REQUEST_ID_PATTERN }) });

/** 200: the person has not finished at the provider yet; poll again after intervalSeconds. */
export const DeviceSignInPendingSchema = Closed({ status: Type.Literal('pending'), intervalSeconds: Type.Integer({ minimum: 1 }) });

/** 201: a CLI session — its token goes in `Authorization: Bearer`, shown once. */
export const CliSessionSchema = Closed({
  status: Type.Literal('signed_in'),
  token: Type.String(),
  principalId: IdSchema('principal'),
  principalName: NameSchema,
  expiresAt: TimestampSchema,
});
export type CliSession = Static<typeof CliSessionSchema>;

/** DELETE /sessions/current: where to send the browser to end the provider's session too (null: nothing to end there). */
export const SignOutSchema = Closed({ providerSignOutUrl: Nullable(Type.String()) });

/**
 * Why a sign-in or a session refresh was refused: the closed vocabulary of `sessions.refused`
 * audit events and of SIGN_IN_REFUSED's message.
 */
export const SIGN_IN_REFUSAL_REASONS = [
  'attempt_unknown',
  'attempt_replayed',
  'attempt_expired',
  'browser_mismatch',
  'provider_error',
  'token_invalid',
  'audience_mismatch',
  'token_expired',
  'nonce_mismatch',
  'issuer_mismatch',
  'no_matching_rule',
  'access_denied',
  'refresh_rejected',
] as const;
export type SignInRefusalReason = (typeof SIGN_IN_REFUSAL_REASONS)[number];
