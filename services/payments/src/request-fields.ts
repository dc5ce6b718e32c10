import { PlatformError } from '@ppay/kernel';

/*
 * Decoding the string fields of list and action requests (proto3 sends "" for absent): one of a closed
 * set of values, or an ISO 8601 time, each refused with VALIDATION_FAILED naming the field.
 */

export function oneOf<T extends string>(values: readonly T[], value: string, param: string): T {
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new PlatformError('VALIDATION_FAILED', `${param} must be one of ${values.join(', ')}`, { param });
}

/** `oneOf`, or undefined when the field was not sent. */
export function optionalOneOf<T extends string>(values: readonly T[], value: string, param: string): T | undefined {
  return value ? oneOf(values, value, param) : undefined;
}

export function dateOf(value: string, param: string): Date | undefined {
  if (!value) return undefined;
  const at = value.length <= 40 ? new Date(value) : new Date(NaN);
  if (Number.isNaN(at.getTime())) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be an ISO 8601 time`, { param });
  }
  return at;
}
