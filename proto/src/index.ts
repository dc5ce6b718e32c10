import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as CommonProto } from './generated/common';
import type { ProtoGrpcType as PaymentsProto } from './generated/payments';
import type { ProtoGrpcType as FxPricingProto } from './generated/fxpricing';
import type { ProtoGrpcType as SubscriptionsProto } from './generated/subscriptions';
import type { ProtoGrpcType as MarketplaceProto } from './generated/marketplace';
import type { ProtoGrpcType as KycProto } from './generated/kyc';
import type { ProtoGrpcType as WebhooksProto } from './generated/webhooks';
import * as fs from 'node:fs';

/** Directory holding the .proto files (shipped with this package). */
export const PROTO_ROOT = path.resolve(__dirname, '..');

export const PROTO_FILES = {
  payments: 'ppay/payments/v1/payments.proto',
  fxPricing: 'ppay/fxpricing/v1/fxpricing.proto',
  subscriptions: 'ppay/subscriptions/v1/subscriptions.proto',
  marketplace: 'ppay/marketplace/v1/marketplace.proto',
  kyc: 'ppay/kyc/v1/kyc.proto',
  webhooks: 'ppay/webhooks/v1/webhooks.proto',
} as const;

/** The one set of proto-loader options used by every process (and by the type generator). */
const fileOptions = JSON.parse(fs.readFileSync(path.join(PROTO_ROOT, 'loader-options.json'), 'utf8')) as {
  keepCase: boolean;
  defaults: boolean;
  oneofs: boolean;
};

export const LOADER_OPTIONS: protoLoader.Options = {
  ...fileOptions,
  longs: Number,
  enums: String,
  includeDirs: [PROTO_ROOT],
};

export type PlatformProto = CommonProto &
  PaymentsProto &
  FxPricingProto &
  SubscriptionsProto &
  MarketplaceProto &
  KycProto &
  WebhooksProto;

let cached: PlatformProto | undefined;

/** Loads the whole contract once per process. */
export function loadPlatformProto(): PlatformProto {
  if (!cached) {
    const definition = protoLoader.loadSync(
      Object.values(PROTO_FILES).map((file) => path.join(PROTO_ROOT, file)),
      LOADER_OPTIONS,
    );
    cached = grpc.loadPackageDefinition(definition) as unknown as PlatformProto;
  }
  return cached;
}

/** The service definitions, keyed by the platform's service names. */
export function serviceDefinitions() {
  const proto = loadPlatformProto().ppay;
  return {
    payments: proto.payments.v1.PaymentsService.service,
    'fx-pricing': proto.fxpricing.v1.FxPricingService.service,
    subscriptions: proto.subscriptions.v1.SubscriptionsService.service,
    marketplace: proto.marketplace.v1.MarketplaceService.service,
    kyc: proto.kyc.v1.KycService.service,
    webhooks: proto.webhooks.v1.WebhooksService.service,
  };
}

export type ServiceName = keyof ReturnType<typeof serviceDefinitions>;

export * as types from './types';
