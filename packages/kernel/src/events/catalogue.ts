import type { ComponentName } from '../ports';
import type { Mode } from '../caller';

/**
 * Every NATS subject and its payload type, in one place. Each stream belongs to the component
 * that publishes on it; that component declares the stream at boot (idempotently).
 */
export const STREAMS = {
  APIKEYS: { subjects: ['apikeys.>'], owner: 'webhooks' },
  MERCHANTS: { subjects: ['merchants.>'], owner: 'marketplace' },
  PAYMENTS: { subjects: ['payments.>'], owner: 'payments' },
} as const satisfies Record<string, { subjects: readonly string[]; owner: ComponentName }>;

export type StreamName = keyof typeof STREAMS;

export const SUBJECTS = {
  apiKeyCreated: 'apikeys.created',
  apiKeyRevoked: 'apikeys.revoked',
  apiKeyStatusChanged: 'apikeys.status_changed',
  apiKeyWebhookUpdated: 'apikeys.webhook_updated',
  apiKeySecretRotated: 'apikeys.secret_rotated',
  merchantCreated: 'merchants.created',
} as const;

export type Subject = (typeof SUBJECTS)[keyof typeof SUBJECTS];

export interface ApiKeyChanged {
  key_id: string;
  merchant_id: number;
  mode: Mode;
  status: 'active' | 'disabled' | 'revoked';
  api_version: string;
}

export interface MerchantCreated {
  merchant_id: number;
  country: string;
  baseline_currency: string;
  is_marketplace_operator: boolean;
  marketplace_id: number | null;
}

export interface EventPayloads {
  'apikeys.created': ApiKeyChanged;
  'apikeys.revoked': ApiKeyChanged;
  'apikeys.status_changed': ApiKeyChanged;
  'apikeys.webhook_updated': ApiKeyChanged;
  'apikeys.secret_rotated': ApiKeyChanged;
  'merchants.created': MerchantCreated;
}

/** What travels on the wire for every internal event. `event_id` doubles as Nats-Msg-Id. */
export interface EventEnvelope<S extends Subject = Subject> {
  event_id: string;
  subject: S;
  occurred_at: string;
  merchant_id?: number;
  mode?: Mode;
  data: EventPayloads[S];
}

export function streamForSubject(subject: string): StreamName {
  for (const [name, def] of Object.entries(STREAMS)) {
    if (def.subjects.some((pattern) => subject.startsWith(pattern.replace(/>$/, '')))) return name as StreamName;
  }
  throw new Error(`No stream captures subject ${subject}`);
}
