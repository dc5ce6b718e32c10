import { PlatformError } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { HostedOnboardingService } from './hosted-onboarding';
import { onboardingLinkResource } from './onboarding-links';

type Handlers = UnaryHandlers<types.kyc.KycServiceHandlers>;

/** The hosted onboarding page: the link token is the capability, no merchant travels. */
export function onboardingHandlers(
  onboarding: HostedOnboardingService,
): Pick<Handlers, 'GetOnboardingLink' | 'FinishOnboardingLink'> {
  return {
    async GetOnboardingLink(req) {
      const {
        kyc: c,
        state,
        refreshUrl,
        gatewayUrl,
      } = await onboarding.onboardingLink(req.token, req.here_url || undefined);
      return toWire({ ...onboardingLinkResource(c, state, refreshUrl), gateway_url: gatewayUrl ?? '' });
    },
    async FinishOnboardingLink(req) {
      const outcome = req.outcome;
      if (outcome !== 'complete' && outcome !== 'reject' && outcome !== 'abandon') {
        throw new PlatformError('VALIDATION_FAILED', 'outcome must be complete, reject or abandon', {
          param: 'outcome',
        });
      }
      const { state, redirectUrl } = await onboarding.finishOnboarding(req.token, outcome);
      return { state, redirect_url: redirectUrl };
    },
  };
}
