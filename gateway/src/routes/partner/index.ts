import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../app';
import { apiKeyAuth } from '../../auth/hooks';
import { registerAccountRoutes } from './account';
import { registerMarketplaceRoutes } from './marketplace';
import { registerPaymentRoutes } from './payments';
import { registerPricingRoutes } from './pricing';
import { registerSubscriptionRoutes } from './subscriptions';

/** Partner API (spec 4.1–4.7, 4.9), authenticated with X-API-Key before any validation. */
export async function registerPartnerRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  app.addHook('preValidation', apiKeyAuth(deps));
  await registerAccountRoutes(app, deps);
  await registerPaymentRoutes(app, deps);
  await registerPricingRoutes(app, deps);
  await registerSubscriptionRoutes(app, deps);
  await registerMarketplaceRoutes(app, deps);
}
