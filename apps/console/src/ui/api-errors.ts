import type { DetailCode } from '@occ/contracts';
import { ApiError, ApiUnreachableError } from '@occ/contracts/client';

/** What a person reads for a failed request: never a stack, always the server's own words. */
export interface ShownError {
  title: string;
  code: string | undefined;
  requestId: string | undefined;
  details: readonly { path: string; code: string }[];
}

export function describeError(error: unknown): ShownError {
  if (error instanceof ApiError) return { title: error.message, code: error.code, requestId: error.requestId, details: error.details };
  if (error instanceof ApiUnreachableError)
    return { title: 'The controller cannot be reached. Check that it is running, then try again.', code: undefined, requestId: undefined, details: [] };
  return { title: 'Something went wrong in the console.', code: undefined, requestId: undefined, details: [] };
}

/** The detail codes the server named for one field (its JSON pointer, or anything under it). */
export function errorsAt(error: unknown, pointer: string): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.details.filter((detail) => detail.path === pointer || detail.path.startsWith(`${pointer}/`)).map((detail) => detail.code);
}

/** Words for every validation code of the API (the record is keyed by the closed list). */
const DETAIL_WORDS: Record<DetailCode, string> = {
  REQUIRED: 'This is required.',
  UNKNOWN_FIELD: 'This field is not allowed here.',
  INVALID_TYPE: 'This has the wrong type.',
  INVALID_FORMAT: 'This is not in the expected format.',
  INVALID_VALUE: 'This value is not allowed.',
  TOO_LONG: 'This is too long.',
  TOO_SHORT: 'This is too short.',
  TOO_LARGE: 'This is too large.',
  TOO_DEEP: 'This is nested too deeply.',
  UNSUPPORTED_VALUE: 'This value is not supported here.',
  UNSUPPORTED_FIELD: 'This setting is not supported by this harness.',
  INVALID_COMBINATION: 'This does not go together with another setting.',
  DUPLICATE_PLUGIN: 'This plugin is selected twice.',
  DUPLICATE_VALUE: 'This value appears twice.',
  CROSS_NAMESPACE_REFERENCE: 'This refers to something in another Namespace.',
  RESOURCE_REMAINS: 'Something still depends on this.',
  REFERENCED_BY: 'This is still in use.',
};

export function detailWords(code: string): string {
  return (DETAIL_WORDS as Record<string, string>)[code] ?? code.toLowerCase().replaceAll('_', ' ');
}
