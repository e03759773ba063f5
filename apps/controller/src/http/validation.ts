import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { MAX_ERROR_DETAILS, type DetailCode, type ErrorDetail } from '@occ/contracts';
import { firstUnstorable } from './well-formed.ts';

export type HttpPart = 'body' | 'querystring' | 'params' | 'headers';
const HTTP_PARTS: readonly HttpPart[] = ['body', 'querystring', 'params', 'headers'];

/** The part Fastify compiles a schema for (it names one of ours; absent means the body). */
export const httpPartOf = (part: string | undefined): HttpPart => HTTP_PARTS.find((known) => known === part) ?? 'body';

/** A request that does not match its route's schema; carries JSON-pointer details, never values. */
export class RequestValidationError extends Error {
  constructor(
    readonly part: HttpPart,
    readonly details: ErrorDetail[],
  ) {
    super('The request does not match its schema.');
    this.name = 'RequestValidationError';
  }
}

const TYPE_ERRORS = new Set([
  ValueErrorType.Object,
  ValueErrorType.Array,
  ValueErrorType.String,
  ValueErrorType.Number,
  ValueErrorType.Integer,
  ValueErrorType.Boolean,
  ValueErrorType.Null,
]);

function detailCode(error: ValueError): DetailCode {
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'REQUIRED';
    // A key refused by a map's key pattern is a malformed key, not an unknown field.
    case ValueErrorType.ObjectAdditionalProperties:
      return error.schema.patternProperties ? 'INVALID_FORMAT' : 'UNKNOWN_FIELD';
    case ValueErrorType.StringPattern:
    case ValueErrorType.StringFormat:
      return 'INVALID_FORMAT';
    case ValueErrorType.StringMaxLength:
    case ValueErrorType.ArrayMaxItems:
    case ValueErrorType.ObjectMaxProperties:
      return 'TOO_LONG';
    case ValueErrorType.StringMinLength:
    case ValueErrorType.ArrayMinItems:
    case ValueErrorType.ObjectMinProperties:
      return 'TOO_SHORT';
    default:
      return TYPE_ERRORS.has(error.type) ? 'INVALID_TYPE' : 'INVALID_VALUE';
  }
}

/**
 * A union error says only "none matched". When the value has the shape of one variant (e.g. an
 * object where object|null is allowed), report that variant's own errors: they name the field.
 */
function flatten(error: ValueError): ValueError[] {
  if (error.type !== ValueErrorType.Union || error.errors.length === 0) return [error];
  const variants = error.errors.map((it) => [...it]);
  const sameShape = variants.filter((errs) => errs.length > 0 && !errs.some((e) => e.path === error.path && TYPE_ERRORS.has(e.type)));
  if (sameShape.length === 0) return [error];
  const best = sameShape.reduce((a, b) => (b.length < a.length ? b : a));
  return best.flatMap(flatten);
}

function collectDetails(errors: Iterable<ValueError>): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const raw of errors) {
    for (const error of flatten(raw)) {
      // A missing property is reported once, as REQUIRED, not again as a type mismatch.
      if (error.value === undefined && error.type !== ValueErrorType.ObjectRequiredProperty) continue;
      const detail = { path: error.path, code: detailCode(error) };
      const key = `${detail.path}\u0000${detail.code}`;
      if (seen.has(key)) continue;
      seen.add(key);
      details.push(detail);
      if (details.length >= MAX_ERROR_DETAILS) return details;
    }
  }
  return details;
}

/**
 * Fastify validator compiler backed by TypeBox: strict for bodies (no coercion, unknown fields
 * rejected), converting query strings ("10" → 10) before checking.
 */
export function compileValidator(schema: TSchema, part: HttpPart) {
  const checker = TypeCompiler.Compile(schema);
  return (input: unknown): { value: unknown } | { error: RequestValidationError } => {
    const value = part === 'querystring' ? Value.Convert(schema, input) : input;
    if (!checker.Check(value)) return { error: new RequestValidationError(part, collectDetails(checker.Errors(value))) };
    // Schema-valid, but can it be stored? (NUL, lone surrogates, runaway nesting in open objects.)
    const unstorable = firstUnstorable(value);
    return unstorable ? { error: new RequestValidationError(part, [unstorable]) } : { value };
  };
}
