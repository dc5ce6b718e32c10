import { createHmac } from 'node:crypto';
import { verifyWebhook } from '@ppay/webhooks-receiver';
import {
  currentPaymentShape,
  deliveryDocument,
  eventDocument,
  signedRequest,
  type DurableEnvelope,
  type DurableReceiver,
} from './webhooks-durable-docs';

describe('what the durable webhooks baseline stores and sends per delivery', () => {
  const money = (amount: number) => ({ amount, currency: 'NGN' });
  const envelope: DurableEnvelope = {
    event_id: 'evt_source_1',
    occurred_at: '2026-11-28T10:00:00.000Z',
    merchant_id: 42,
    mode: 'sandbox',
    data: {
      charge_id: 'ch_1',
      merchant_id: 42,
      status: 'failed',
      amount: money(500),
      total: money(500),
      transaction_fee: money(17),
      customer_pays_fees: false,
      breakdown: { customer_paid: money(500), merchant_gross: money(500) },
      customer: { email: 'a@example.com', first_name: 'A', last_name: 'B', country: 'NG' },
      completed_at: '2026-11-28T09:59:59.500Z',
    },
  };
  const receiver: DurableReceiver = { merchant_id: 42, key_id: 'key_1', port: 9999, secret: 'whsec_test' };
  const now = new Date('2026-11-28T10:00:01.000Z');

  it('stores the event like the platform: 12 fields, the payload as one JSON string, an id the same on redelivery', () => {
    const doc = eventDocument(envelope, 'payment.failed', 7, now);
    expect(Object.keys(doc)).toHaveLength(12);
    expect(JSON.parse(doc.data)).toEqual(envelope.data);
    expect(doc).toMatchObject({
      merchant_id: 42,
      about_merchant_id: 42,
      object_type: 'charge',
      object_id: 'ch_1',
      sequence: 7,
      source_event_id: 'evt_source_1',
      occurred_at: new Date('2026-11-28T09:59:59.500Z'),
    });
    expect(eventDocument(envelope, 'payment.failed', 7, new Date())._id).toBe(doc._id);
    expect(eventDocument({ ...envelope, event_id: 'evt_source_2' }, 'payment.failed', 8, now)._id).not.toBe(doc._id);
  });

  it('sends a body the receiver SDK verifies, with both signature headers and the payment in its sent shape', () => {
    const event = eventDocument(envelope, 'payment.failed', 7, now);
    const request = signedRequest(event, envelope.data, receiver, new Date());
    const verified = verifyWebhook<{ data: Record<string, unknown> }>(request.body, request.headers, receiver.secret);
    expect(verified.event_id).toBe(event._id);
    expect(request.headers['x-service-signature']).toBe(
      createHmac('sha256', receiver.secret).update(request.body).digest('hex'),
    );
    expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(request.body));
    expect(Object.keys(request.headers)).toHaveLength(9);
    const data = (JSON.parse(request.body) as { data: Record<string, unknown> }).data;
    expect(data).toEqual(currentPaymentShape(envelope.data));
    expect(data.amount).toEqual(envelope.data.breakdown);
    expect(data).not.toHaveProperty('merchant_id');
    expect(data).not.toHaveProperty('total');
    expect(data.customer).toEqual({ email: 'a@example.com', first_name: 'A', last_name: 'B' });
  });

  it('stores the delivery like the platform: 18 fields, the attempt with exactly what was sent as one JSON string', () => {
    const event = eventDocument(envelope, 'payment.failed', 7, now);
    const request = signedRequest(event, envelope.data, receiver, now);
    const finished = new Date(now.getTime() + 3);
    const ok = deliveryDocument(
      event,
      receiver,
      request,
      { status: 200, duration_ms: 3, response_excerpt: '' },
      now,
      finished,
    );
    expect(Object.keys(ok)).toHaveLength(18);
    expect(ok).toMatchObject({ status: 'succeeded', last_error_class: null, event_id: event._id, key_id: 'key_1' });
    expect(ok.attempts).toHaveLength(1);
    const attempt = JSON.parse(ok.attempts[0]!) as Record<string, unknown>;
    expect(attempt).toMatchObject({
      number: 1,
      status: 200,
      success: true,
      request_body: request.body,
      request_headers: request.headers,
      url: 'http://127.0.0.1:9999/hooks',
    });
    const failed = (status: number | null) =>
      deliveryDocument(event, receiver, request, { status, duration_ms: 3, response_excerpt: 'no' }, now, finished);
    expect(failed(500)).toMatchObject({ status: 'pending', last_error_class: 'http_error' });
    expect(failed(null)).toMatchObject({ status: 'pending', last_error_class: 'network_error' });
    expect(failed(500)._id).toBe(ok._id);
  });
});
