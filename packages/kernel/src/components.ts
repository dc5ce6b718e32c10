/** The platform's services, by the names their configuration, metrics and events use. */
export const COMPONENTS = ['payments', 'fx-pricing', 'subscriptions', 'marketplace', 'kyc', 'webhooks'] as const;
export type ComponentName = (typeof COMPONENTS)[number];
