import FindMyWay from 'find-my-way';

/** The methods the API knows; any other (QUERY, TRACE, PROPFIND…) is refused before the body is read. */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const KNOWN = new Set<string>(HTTP_METHODS);

export function isKnownMethod(method: string): boolean {
  return KNOWN.has(method);
}

/**
 * Which methods each path answers, matched the way Fastify matches (its own router), so a request
 * for a path that exists with another method gets 405 and an `Allow` header instead of 404.
 */
export class AllowedMethods {
  private readonly router = FindMyWay({ ignoreTrailingSlash: false });

  add(methods: string | string[], url: string): void {
    for (const method of Array.isArray(methods) ? methods : [methods]) {
      if (!isKnownMethod(method)) continue;
      try {
        this.router.on(method as (typeof HTTP_METHODS)[number], url, () => undefined);
      } catch {
        // Already known (Fastify adds HEAD for every GET itself).
      }
    }
  }

  /** The methods `path` answers (empty when no route has it). */
  for(path: string): string[] {
    return HTTP_METHODS.filter((m) => this.router.find(m, path) !== null);
  }
}
