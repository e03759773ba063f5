import { Type, type Static } from '@sinclair/typebox';
import { Closed } from '../common.ts';
import { PrincipalSchema } from './iam.ts';

/**
 * Who a request signs in as (`GET /whoami`): its own principal, and whether it came with an API
 * key or the console's session cookie. Nothing about other principals or any resource.
 */
export const CallerSchema = Closed({
  principal: PrincipalSchema,
  /** `cli_session`: a single sign-on session of the CLI (occ login --sso), presented as a bearer token. */
  credential: Type.Union([Type.Literal('api_key'), Type.Literal('console_session'), Type.Literal('cli_session')]),
});
export type CallerView = Static<typeof CallerSchema>;

/** Which OCC answers (`GET /version`). */
export const ServerVersionSchema = Closed({
  version: Type.String({ description: 'The OCC release the controller runs.' }),
  schemaVersion: Type.Integer({ minimum: 0, description: 'The database migrations applied.' }),
  node: Type.String({ description: 'The Node.js version the controller runs on.' }),
});
export type ServerVersion = Static<typeof ServerVersionSchema>;
