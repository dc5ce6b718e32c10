import { PlatformError } from '@ppay/kernel';

/** Attempts of one use case before a write that keeps losing the race on the case's version is a 409. */
const MAX_ATTEMPTS = 3;

/**
 * Every change of a case is one conditional write on its `version`: `attempt` reads the case, builds the
 * change and writes it, answering undefined when the write lost the race (another writer got there first).
 * It then runs again on the case as it is now, up to three times; CONFLICT after that.
 */
export async function retryLostWrites<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const done = await attempt();
    if (done !== undefined) return done;
  }
  throw new PlatformError('CONFLICT');
}
