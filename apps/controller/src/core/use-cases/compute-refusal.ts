import { invalid } from '../errors.ts';
import { ComputeValidationError } from '../ports/compute-driver.ts';

/**
 * Runs one of the ComputeDriver's static checks (`validateRevision`, `validateSshHost`): what it
 * refuses (a ComputeValidationError) is the request's 400, at the field the driver names. The one
 * mapping of a driver's refusal to the API.
 */
export function refusedByCompute(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof ComputeValidationError) throw invalid(error.message, [{ path: error.pointer, code: 'UNSUPPORTED_VALUE' }]);
    throw error;
  }
}
