import type { SendInput, SendResult, WebhookSender } from '../domain/ports';
import { sendWebhook } from './http-sender';

/** The domain's sender port over the SSRF-guarded node:http sender. */
export class HttpWebhookSender implements WebhookSender {
  send(input: SendInput): Promise<SendResult> {
    return sendWebhook(input);
  }
}
