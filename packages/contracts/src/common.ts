import { Type, type TSchema } from '@sinclair/typebox';
import { idPattern, type IdKind } from './ids.ts';
import { DETAIL_CODES } from './errors.ts';

/** 1–200 characters, no control characters, no leading or trailing whitespace. */
export const NAME_PATTERN = '^[^\\s\\u0000-\\u001f\\u007f](?:[^\\u0000-\\u001f\\u007f]{0,198}[^\\s\\u0000-\\u001f\\u007f])?$';

export const NameSchema = Type.String({ minLength: 1, maxLength: 200, pattern: NAME_PATTERN });
export const TimestampSchema = Type.String({ format: 'date-time' });

export function IdSchema(kind: IdKind) {
  return Type.String({ pattern: idPattern(kind) });
}

export function Closed<T extends Record<string, TSchema>>(properties: T, options: { minProperties?: number; description?: string } = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

export const MetaSchema = Closed({ requestId: Type.String() });

export function Envelope<T extends TSchema>(data: T) {
  return Closed({ data, meta: MetaSchema });
}

export const ErrorEnvelopeSchema = Closed({
  error: Closed({
    code: Type.String(),
    message: Type.String({ maxLength: 256 }),
    details: Type.Optional(Type.Array(Closed({ path: Type.String(), code: Type.Union(DETAIL_CODES.map((c) => Type.Literal(c))) }), { maxItems: 32 })),
  }),
  meta: MetaSchema,
});

export const CURSOR_MAX_LENGTH = 512;

export const ListQuerySchema = Closed({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: CURSOR_MAX_LENGTH, pattern: '^[A-Za-z0-9_-]+$' })),
});

/** `?dryRun=true` on a create or update that allows it (RouteContract.dryRun): answer as the write would, keep nothing. */
export const DryRunQuerySchema = Closed({
  dryRun: Type.Optional(Type.Boolean()),
});

export function ListOf<T extends TSchema>(item: T) {
  return Closed({ items: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) });
}

export const DEFAULT_PAGE_SIZE = 50;
