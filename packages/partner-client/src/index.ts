import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';

export interface PartnerClientOptions {
  /** Where the API is, e.g. https://api.example.com (no path). */
  baseUrl: string;
  /** `X-API-Key`: partner calls (pk_sandbox_… or pk_live_…). */
  apiKey?: string;
  /** `x-id-key`: the dashboard user token (API key management, operator approvals). */
  userToken?: string;
  /** Extra headers on every call (e.g. `X-Environment` for operator routes). */
  headers?: Record<string, string>;
  fetch?: ClientOptions['fetch'];
}

/**
 * A client typed by the platform's OpenAPI document: every path, parameter, request body and answer
 * (success and error envelopes) is checked by TypeScript. Calls answer `{ data, error, response }`.
 */
export function createPartnerClient(options: PartnerClientOptions): Client<paths> {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: {
      ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
      ...(options.userToken ? { 'x-id-key': options.userToken } : {}),
      ...options.headers,
    },
  });
}
