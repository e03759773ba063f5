import { Type } from '@sinclair/typebox';
import { Closed } from '../common.ts';

// Path ids are plain bounded strings: a malformed id answers 404 like a missing one,
// so probing ids teaches a caller nothing.
export const PathId = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' });

export const NsParams = Closed({ ns: PathId });
export const NsChildParams = Closed({ ns: PathId, id: PathId });
export const IdParams = Closed({ id: PathId });
export const PrincipalKeyParams = Closed({ id: PathId, keyId: PathId });
