import { createHash } from 'node:crypto';
import { randomBase62 } from '@ppay/kernel';
import type { KycCaseRecord, OnboardingLink } from '../cases/kyc-case';

/**
 * Hosted onboarding links (the connected-account route's `onboarding_url`, spec 4.9), modelled on
 * Stripe account links: the token (`onb_` + 32 base62, ~190 bits) is the page's only credential, is
 * stored as a SHA-256 hash, expires after a configured time and is single-use — completing or
 * abandoning the page uses it up. Issuing a new link supersedes the previous one; an expired, used or
 * superseded link sends the merchant to the partner's `refresh_url`, where the partner asks for a new
 * one (POST …/kyc again, or the payout endpoints with `callback_url`).
 */

const TOKEN_PREFIX = 'onb_';
const TOKEN_LENGTH = 32;
/** Superseded links remembered per case, so an old link still lands on its refresh_url. */
const MAX_SUPERSEDED = 10;

export type LinkState = 'active' | 'expired' | 'used';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Syntactically a link token (checked before any lookup). */
export function isLinkToken(value: string): boolean {
  if (value.length !== TOKEN_PREFIX.length + TOKEN_LENGTH || !value.startsWith(TOKEN_PREFIX)) return false;
  for (const c of value.slice(TOKEN_PREFIX.length)) {
    const ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!ok) return false;
  }
  return true;
}

export interface IssuedLink {
  link: OnboardingLink;
  /** Shown once, in the response: only its hash is stored. */
  token: string;
  /** For embedded onboarding (spec 4.9), from the gateway; only its hash is stored. */
  client_secret: string;
}

export function issueLink(input: {
  purpose: OnboardingLink['purpose'];
  clientSecret: string;
  returnUrl: string;
  refreshUrl: string;
  now: Date;
  ttlMs: number;
}): IssuedLink {
  const token = `${TOKEN_PREFIX}${randomBase62(TOKEN_LENGTH)}`;
  const client_secret = input.clientSecret;
  return {
    token,
    client_secret,
    link: {
      token_hash: hashToken(token),
      purpose: input.purpose,
      return_url: input.returnUrl,
      refresh_url: input.refreshUrl,
      created_at: input.now,
      expires_at: new Date(input.now.getTime() + input.ttlMs),
      used_at: null,
      outcome: null,
      client_secret_hash: hashToken(client_secret),
    },
  };
}

/** The case's links after `next` replaces the current one (which is remembered as superseded). */
export function withNewLink(
  c: Pick<KycCaseRecord, 'link' | 'superseded_links'>,
  next: OnboardingLink,
): Pick<KycCaseRecord, 'link' | 'superseded_links'> {
  const previous = c.link ? [{ token_hash: c.link.token_hash, refresh_url: c.link.refresh_url }] : [];
  return { link: next, superseded_links: [...previous, ...c.superseded_links].slice(0, MAX_SUPERSEDED) };
}

export function linkState(link: OnboardingLink, now: Date): LinkState {
  if (link.used_at) return 'used';
  return now.getTime() >= link.expires_at.getTime() ? 'expired' : 'active';
}

/** Origins the page may redirect to after a form post (the CSP form-action list). */
export function redirectOrigins(link: OnboardingLink): string[] {
  const origins = new Set<string>();
  for (const url of [link.return_url, link.refresh_url]) {
    try {
      origins.add(new URL(url).origin);
    } catch {
      // validated when stored; nothing to add
    }
  }
  return [...origins];
}

/** What the hosted page shows and where it may send the merchant. */
export function onboardingLinkResource(c: KycCaseRecord, state: LinkState, refreshUrl: string) {
  const link = c.link!;
  return {
    state,
    purpose: link.purpose,
    mode: c.mode,
    merchant_id: c.merchant_id,
    business_name: c.business_name,
    country: c.connected?.country ?? c.id_country,
    business_type: c.business_type,
    settlement_currency: c.settlement_currency,
    gateway_region: c.connected?.gateway_region ?? '',
    gateway_account_id: c.connected?.gateway_account_id ?? '',
    return_url: link.return_url,
    refresh_url: refreshUrl,
    expires_at: link.expires_at,
    status: c.status,
    redirect_origins: redirectOrigins(link),
  };
}
