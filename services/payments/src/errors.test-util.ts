import { PlatformError } from '@ppay/kernel';

/** [code, param] of the PlatformError `fn` throws, or undefined when it throws nothing. */
export function codeOf(fn: () => unknown): [string, string | undefined] | undefined {
  try {
    fn();
  } catch (err) {
    return [(err as PlatformError).code, (err as PlatformError).param];
  }
  return undefined;
}

/** The PlatformError `p` rejects with; the test fails when it resolves or rejects with anything else. */
export async function rejectionOf(p: Promise<unknown>): Promise<PlatformError> {
  const err = await p.then(
    () => new Error('expected an error'),
    (e: unknown) => e,
  );
  if (err instanceof PlatformError) return err;
  throw err;
}
