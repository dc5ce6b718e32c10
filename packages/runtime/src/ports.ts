import type { ComponentName } from '@ppay/kernel';

/**
 * Default ports of every component. One table used by the services' config defaults, the local
 * launcher, docker-compose, the Helm values and the test that cross-checks them.
 */
export const DEFAULT_PORTS = {
  gateway: { http: 8080, metrics: 9100 },
  payments: { grpc: 50051, metrics: 9101 },
  'fx-pricing': { grpc: 50052, metrics: 9102 },
  subscriptions: { grpc: 50053, metrics: 9103 },
  marketplace: { grpc: 50054, metrics: 9104 },
  kyc: { grpc: 50055, metrics: 9105 },
  webhooks: { grpc: 50056, metrics: 9106 },
} as const;

/** Env var holding a service's gRPC address, as read by its clients (e.g. PAYMENTS_GRPC_ADDR). */
export function grpcAddrEnvVar(service: ComponentName): string {
  return `${service.toUpperCase().replace(/-/g, '_')}_GRPC_ADDR`;
}
