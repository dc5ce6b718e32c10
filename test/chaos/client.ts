import type { HttpResult } from '../support/platform';

/** The fault suite's HTTP client, as faults.test.ts gives it to each part of the load. */
export type ChaosApi = (
  key: string,
  method: string,
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<HttpResult>;

/** Retries `send` (same Idempotency-Key) until a 200 or the deadline; `done` lists the answers seen. */
export type Until200 = (
  label: string,
  send: () => Promise<HttpResult>,
  deadline: number,
  done?: string[],
) => Promise<HttpResult>;
