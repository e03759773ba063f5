import { ApiError } from '@occ/contracts/client';
import { errorsAt } from '../ui/api-errors.ts';

/**
 * Error codes for the editor's controls. `under` is the shared rule (the pointer or anything
 * below it) for leaf controls; `exactly` is for a container (a plugin's section) whose children
 * have controls of their own, so a child's error is not shown twice.
 */
export function errorsUnder(error: unknown, path: string): string[] {
  return errorsAt(error, path);
}

export function errorsExactly(error: unknown, path: string): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.details.filter((detail) => detail.path === path).map((detail) => detail.code);
}
