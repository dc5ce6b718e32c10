import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * The pages the gateway serves to people rather than programs (hosted checkout, hosted onboarding):
 * server-rendered HTML, no JavaScript, no external assets, every partner or customer value escaped,
 * one inline stylesheet carrying the response's CSP nonce. Never cached, framed or referred.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export interface HostedPageOptions {
  /** Origins the page's forms may post to besides its own (the partner's redirect targets). */
  formTargets?: readonly string[];
  /** Adds `img-src 'self'` (the checkout page shows card brand images). */
  selfImages?: boolean;
}

/** Sends a hosted page: a fresh nonce, the security headers, and the HTML `render` builds with it. */
export function sendHostedPage(
  reply: FastifyReply,
  status: number,
  render: (nonce: string) => string,
  options: HostedPageOptions = {},
) {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .status(status)
    .header(
      'content-security-policy',
      [
        "default-src 'none'",
        `style-src 'nonce-${nonce}'`,
        ...(options.selfImages ? ["img-src 'self'"] : []),
        `form-action ${["'self'", ...(options.formTargets ?? [])].join(' ')}`,
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    )
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(render(nonce));
}

/** The document around a hosted page's body: its title, stylesheet, sandbox banner and footer. */
export function hostedLayout(page: {
  title: string;
  nonce: string;
  style: string;
  body: string;
  /** Shown as the sandbox banner when set. */
  sandboxBanner: string | null;
  footer: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.title)}</title>
<style nonce="${escapeHtml(page.nonce)}">${page.style}</style>
</head>
<body>
${page.sandboxBanner ? `<div class="banner" data-testid="sandbox-banner">${page.sandboxBanner}</div>` : ''}
<main>
${page.body}
<footer>${page.footer}</footer>
</main>
</body>
</html>`;
}
