import type { PlatformError } from '@ppay/kernel';

/** [code, param] of the PlatformError `fn` throws, or undefined when it throws nothing. */
export function codeOf(fn: () => unknown): [string, string | undefined] | undefined {
  try {
    fn();
  } catch (err) {
    return [(err as PlatformError).code, (err as PlatformError).param];
  }
  return undefined;
}
