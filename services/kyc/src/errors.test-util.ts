import { PlatformError } from '@ppay/kernel';

/** The PlatformError `fn` throws; fails the test when it throws nothing or something else. */
export function caught(fn: () => unknown): PlatformError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PlatformError) return error;
    throw error;
  }
  throw new Error('expected a PlatformError, nothing was thrown');
}
