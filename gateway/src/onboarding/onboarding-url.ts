import type { GatewayDeps } from '../deps';

/** The onboarding link of a token (the gateway owns its public address). */
export const onboardingUrl = (deps: Pick<GatewayDeps, 'config'>, token: string) =>
  `${deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/onboarding/${encodeURIComponent(token)}`;
