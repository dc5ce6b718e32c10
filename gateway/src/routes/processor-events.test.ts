import { PlatformError } from '@ppay/kernel';
import { testGateway } from '../gateway-kit.test-util';

const url = '/api/v1/processors/stripe/webhooks';
// Bytes a JSON parser would not give back as they came: spacing, key order, a unicode escape.
const raw = '{ "id":"evt_1",  "type":"payment_intent.succeeded", "data":{"object":{"note":"caf\\u00e9"}} }';

describe('POST /api/v1/processors/stripe/webhooks', () => {
  it('forwards the exact bytes and the Stripe-Signature header to payments, with no API key', async () => {
    const t = await testGateway({ payments: { ReceiveProcessorEvent: () => ({ outcome: 'received' }) } });
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': 't=1,v1=abc' },
      payload: raw,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, outcome: 'received' });
    const call = t.calls[0]!;
    expect(call.method).toBe('ReceiveProcessorEvent');
    expect(call.request.processor).toBe('stripe');
    expect(Buffer.from(call.request.payload).toString('utf8')).toBe(raw);
    expect(call.request.signature).toBe('t=1,v1=abc');
    expect(call.merchantId).toBeUndefined();
  });

  it('answers 400 when payments refuses the signature (missing header included)', async () => {
    const t = await testGateway({
      payments: {
        ReceiveProcessorEvent: () => {
          throw new PlatformError('PROCESSOR_SIGNATURE_INVALID', undefined, { param: 'Stripe-Signature' });
        },
      },
    });
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: raw,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('PROCESSOR_SIGNATURE_INVALID');
    expect(t.calls[0]!.request.signature).toBe('');
  });

  it('refuses a body over the limit before calling payments', async () => {
    const t = await testGateway({ payments: { ReceiveProcessorEvent: () => ({ outcome: 'received' }) } });
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=abc' },
      payload: 'x'.repeat(300 * 1024),
    });
    expect(res.statusCode).toBe(413);
    expect(t.calls).toHaveLength(0);
  });
});
