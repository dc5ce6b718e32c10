export type Answer<T> = { timedOut: true } | { timedOut: false; value: T } | { timedOut: false; error: unknown };

/** Waits for `work` until the caller's deadline (minus a margin to answer), without cancelling it. */
export async function withinDeadline<T>(
  work: Promise<T>,
  deadline: Date | undefined,
  now: () => Date,
): Promise<Answer<T>> {
  const settled: Promise<Answer<T>> = work.then(
    (value) => ({ timedOut: false, value }),
    (error: unknown) => ({ timedOut: false, error }),
  );
  if (!deadline) return settled;
  const waitMs = deadline.getTime() - now().getTime() - 200;
  if (waitMs <= 0) return { timedOut: true };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Answer<T>>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), waitMs);
  });
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
