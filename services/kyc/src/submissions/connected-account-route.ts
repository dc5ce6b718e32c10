import { PlatformError } from '@ppay/kernel';
import { nextStatus } from '../cases/kyc-status';
import { issueLink, withNewLink } from '../onboarding/onboarding-links';
import type { ConnectedAccountProviders, KycCaseRepository } from '../ports';
import type { ConnectedSubmission } from './submission';
import { submittedCase, type RouteOutcome, type SubmissionAttempt, type SubmissionRoute } from './submission-route';

export interface ConnectedAccountRouteDeps {
  cases: Pick<KycCaseRepository, 'nextId'>;
  providers: ConnectedAccountProviders;
}

export const CONNECTED_MESSAGE = 'Redirect the merchant to onboarding_url to complete onboarding.';

/**
 * Connected-account onboarding (every country but NG, GH, ZA and KE; spec 4.9): a connected account at
 * the card gateway of the caller's mode, created once per case and kept across resubmissions, and a
 * onboarding link to it (onboarding-links.ts): our hosted page in sandbox, a redirect to the gateway's
 * own onboarding in live. Submitting again while onboarding is pending only
 * issues a new link, which supersedes the previous one.
 */
export class ConnectedAccountRoute implements SubmissionRoute<ConnectedSubmission> {
  constructor(
    private readonly deps: ConnectedAccountRouteDeps,
    private readonly options: { linkTtlMs: number },
  ) {}

  async attempt(attempt: SubmissionAttempt<ConnectedSubmission>): Promise<RouteOutcome> {
    const { caller, input, existing, now } = attempt;
    const provider = this.deps.providers[caller.mode];
    if (!provider) {
      throw new PlatformError(
        'GATEWAY_NOT_CONFIGURED',
        'Connected-account onboarding is not enabled for live keys yet',
        {
          param: 'country',
        },
      );
    }
    const from = existing?.status ?? 'not_started';
    // Checked before an account is created, so a refused submission creates nothing at the gateway.
    const to = nextStatus(from, { type: 'start_onboarding' });
    // The case's account, else the one an attempt that lost its write race created: never two.
    const kept = existing?.route === 'connected_account' ? existing.connected : null;
    // An account stays under the regional platform account it was made in.
    const region = kept?.gateway_region ?? input.gateway_region;
    const gatewayAccountId =
      kept?.gateway_account_id ??
      attempt.previous?.result.kyc.connected?.gateway_account_id ??
      (
        await provider.createAccount({
          merchantId: attempt.merchantId,
          country: input.country,
          businessType: input.business_type,
          settlementCurrency: input.settlement_currency,
          region,
        })
      ).gateway_account_id;
    const account = { gateway_account_id: gatewayAccountId, gateway_region: region };
    const issued = issueLink({
      purpose: 'onboarding',
      clientSecret: await provider.clientSecret(account, 'onboarding'),
      returnUrl: input.return_url,
      refreshUrl: input.refresh_url,
      now,
      ttlMs: this.options.linkTtlMs,
    });
    const reissue = from === 'pending_onboarding';
    const { kyc, events } = await submittedCase(
      attempt,
      () => this.deps.cases.nextId(),
      {
        action: 'start_onboarding',
        from,
        to,
        actor: 'operator',
        actor_id: `operator:${caller.operatorId}`,
        reason: reissue ? 'new onboarding link' : null,
      },
      {
        route: 'connected_account',
        provider: 'gateway',
        business_type: input.business_type,
        legal_name: null,
        id_country: input.country,
        settlement_currency: input.settlement_currency,
        country_mismatch: false,
        format: 'connected',
        owner: null,
        business: null,
        bank_account: null,
        review: null,
        connected: {
          ...account,
          country: input.country,
          preferred_currency: input.preferred_currency,
        },
        ...withNewLink(
          { link: existing?.link ?? null, superseded_links: existing?.superseded_links ?? [] },
          issued.link,
        ),
        submitted_at: reissue && existing ? existing.submitted_at : now,
        reviewed_at: reissue && existing ? existing.reviewed_at : null,
      },
    );
    return {
      result: {
        kind: 'connected',
        kyc,
        token: issued.token,
        publishable_key: provider.publishableKey(account),
        client_secret: issued.client_secret,
        expires_at: issued.link.expires_at,
        message: CONNECTED_MESSAGE,
      },
      events,
    };
  }
}
