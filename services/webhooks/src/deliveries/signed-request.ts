import type { DeliveryKey, SendResult, WebhookSender } from '../ports';
import { renderEvent } from '../webhook-events/renderers';
import type { WebhookEventRecord } from '../webhook-events/webhook-event';
import { signDelivery } from './signing';

export const USER_AGENT = 'ppay-webhooks/1.0';

export interface SignedRequest {
  event_type: string;
  body: string;
  /** Exactly the headers sent (the sender adds nothing else). */
  headers: Record<string, string>;
}

/** Renders for the key's current version and signs with its current (and, during a rotation, previous) secret. */
export function signedRequest(event: WebhookEventRecord, key: DeliveryKey, now: Date): SignedRequest {
  const rendered = renderEvent(event, key.api_version);
  const signatures = signDelivery(rendered.body, key.secrets, Math.floor(now.getTime() / 1000));
  return {
    event_type: rendered.event_type,
    body: rendered.body,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(rendered.body)),
      'user-agent': USER_AGENT,
      'x-service-event': rendered.event_type,
      'x-service-event-id': event.event_id,
      'x-service-api-version': key.api_version,
      'x-service-signature': signatures['X-Service-Signature'],
      'x-service-timestamp': signatures['X-Service-Timestamp'],
      'x-service-signature-v2': signatures['X-Service-Signature-V2'],
    },
  };
}

/**
 * Signs the event for the key at `now` and sends it once to `url` (the key's URL, checked by the
 * caller). Only a sandbox key may reach private targets, and only where the service allows them.
 */
export async function sendSigned(
  sender: WebhookSender,
  to: { key: DeliveryKey; url: string },
  event: WebhookEventRecord,
  now: Date,
  options: { allowPrivateTargets: boolean; timeoutMs: number },
): Promise<{ request: SignedRequest; result: SendResult }> {
  const request = signedRequest(event, to.key, now);
  const result = await sender.send({
    url: to.url,
    body: request.body,
    headers: request.headers,
    allowPrivateTargets: to.key.mode === 'sandbox' && options.allowPrivateTargets,
    timeoutMs: options.timeoutMs,
  });
  return { request, result };
}
