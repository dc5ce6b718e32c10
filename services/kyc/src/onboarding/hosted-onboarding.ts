import { PlatformError, type OutboxEntry } from '@ppay/kernel';
import { decidedCase } from '../cases/case-decisions';
import { submissionUpdated, type KycCaseRecord } from '../cases/kyc-case';
import { KYC_TRANSITIONS, type KycActionType } from '../cases/kyc-status';
import { retryLostWrites } from '../cases/lost-writes';
import { withDefaults, type ConnectedAccountProviders, type KycCaseRepository, type UseCaseExtras } from '../ports';
import { hashToken, isLinkToken, linkState, type LinkState } from './onboarding-links';

export interface HostedOnboardingServiceDeps extends UseCaseExtras {
  cases: KycCaseRepository;
  /** The connected-account gateway of each mode: in live, onboarding_url redirects to its own onboarding. */
  providers: ConnectedAccountProviders;
}

export type OnboardingOutcome = 'complete' | 'reject' | 'abandon';

const GATEWAY_DECLINE_REASON = 'Declined by the connected-account gateway';

/**
 * What the connected-account route's `onboarding_url` (spec 4.9) leads to; the link token is its only
 * credential, and no merchant travels.
 * - Sandbox: our hosted page plays the card gateway's onboarding. It verifies nothing, so it may only
 *   stand in for the sandbox gateway.
 * - Live: the link sends the merchant on to a fresh link to the gateway's own onboarding (Stripe's
 *   Account Links last minutes; ours lasts ONBOARDING_LINK_TTL_MS), whose refresh leads back here. The
 *   page's form is refused (422 ONBOARDING_LIVE_NOT_AVAILABLE): a live merchant is verified by the real
 *   gateway, never by a click here, and its status follows the gateway's account events.
 */
export class HostedOnboardingService {
  private readonly deps: Required<HostedOnboardingServiceDeps>;

  constructor(deps: HostedOnboardingServiceDeps) {
    this.deps = withDefaults(deps);
  }

  /**
   * The case behind a link token and the link's state; for an active live link, also where the gateway's
   * own onboarding continues (`hereUrl`, this link's own address, is where the gateway sends the merchant
   * back when its link expired).
   */
  async onboardingLink(
    token: string,
    hereUrl?: string,
  ): Promise<{ kyc: KycCaseRecord; state: LinkState; refreshUrl: string; gatewayUrl: string | null }> {
    const found = await this.findLink(token);
    const { kyc: c, state } = found;
    let gatewayUrl: string | null = null;
    if (c.mode !== 'sandbox' && state === 'active' && c.link && c.connected) {
      const provider = this.deps.providers[c.mode];
      if (!provider) throw new PlatformError('GATEWAY_NOT_CONFIGURED');
      gatewayUrl = await provider.gatewayLink(c.connected, c.link.purpose, {
        returnUrl: c.link.return_url,
        refreshUrl: hereUrl ?? c.link.refresh_url,
      });
    }
    // Only a gateway's own onboarding may move a live case: without one, the page is not for live.
    if (c.mode !== 'sandbox' && state === 'active' && !gatewayUrl)
      throw new PlatformError('ONBOARDING_LIVE_NOT_AVAILABLE');
    return { kyc: c, state, refreshUrl: found.refreshUrl, gatewayUrl };
  }

  /**
   * The page's form post: complete (the gateway verifies the merchant: pending_onboarding → approved),
   * reject (the gateway declines → rejected) or abandon (status unchanged). The link is used up either
   * way; an expired, used or superseded link changes nothing and leads to refresh_url.
   */
  finishOnboarding(
    token: string,
    outcome: OnboardingOutcome,
  ): Promise<{ state: 'done' | 'expired' | 'used'; redirectUrl: string }> {
    return retryLostWrites(async () => {
      const { kyc: c, state, refreshUrl } = await this.findLink(token);
      if (c.mode !== 'sandbox') throw new PlatformError('ONBOARDING_LIVE_NOT_AVAILABLE');
      if (state !== 'active' || !c.link)
        return { state: state === 'expired' ? ('expired' as const) : ('used' as const), redirectUrl: refreshUrl };
      const now = this.deps.now();
      let next: KycCaseRecord = {
        ...c,
        link: { ...c.link, used_at: now, outcome },
        version: c.version + 1,
        updated_at: now,
      };
      const events: OutboxEntry[] = [];
      if (c.link.purpose === 'onboarding' && outcome !== 'abandon') {
        const action: KycActionType = outcome === 'complete' ? 'complete_onboarding' : 'reject';
        // The submission may have moved on meanwhile (a sandbox helper): then the page only ends.
        if (KYC_TRANSITIONS[action][c.status]) {
          next = decidedCase(next, action, 'gateway', c.connected?.gateway_account_id ?? null, {
            reason: outcome === 'reject' ? GATEWAY_DECLINE_REASON : null,
          });
          events.push(submissionUpdated(next, c.status, action));
        }
      }
      if (!(await this.deps.cases.save(c.version, next, events))) return undefined;
      if (events.length) this.deps.metrics.decided(outcome, 'gateway', c.mode);
      return { state: 'done' as const, redirectUrl: c.link.return_url };
    });
  }

  private async findLink(token: string) {
    if (!isLinkToken(token)) throw new PlatformError('ONBOARDING_LINK_NOT_FOUND');
    const hash = hashToken(token);
    const kyc = await this.deps.cases.findByLinkToken(hash);
    if (!kyc || !kyc.link) throw new PlatformError('ONBOARDING_LINK_NOT_FOUND');
    if (kyc.link.token_hash !== hash) {
      const old = kyc.superseded_links.find((l) => l.token_hash === hash);
      if (!old) throw new PlatformError('ONBOARDING_LINK_NOT_FOUND');
      return { kyc, state: 'used' as LinkState, refreshUrl: old.refresh_url };
    }
    return { kyc, state: linkState(kyc.link, this.deps.now()), refreshUrl: kyc.link.refresh_url };
  }
}
