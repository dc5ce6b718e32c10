import { streamForSubject, type EventEnvelope } from '@ppay/kernel';
import { WEBHOOK_SOURCES } from './event-sources';

describe('webhook sources', () => {
  it('take every event of one object type from one stream, so the stream sequence orders them', () => {
    // Enough of every source's payload for `object` to name the object.
    const data = {
      charge_id: 'ch_1',
      merchant_id: 1,
      mode: 'sandbox',
      amount: { amount: 1, currency: 'NGN' },
      subscription_id: 'sub_1',
      payout_request_id: 1,
      plan_id: 'ip_1',
      dispute: { dispute_id: 'dp_1', updated_at: '2026-11-01T00:00:00.000Z' },
      order: { order_id: 'ord_1', updated_at: '2026-11-01T00:00:00.000Z' },
    };
    const streams = new Map<string, Set<string>>();
    for (const source of WEBHOOK_SOURCES) {
      const envelope = { subject: source.subject, mode: 'sandbox', merchant_id: 1, data } as unknown as EventEnvelope;
      const type = source.object(envelope as never).type;
      streams.set(type, (streams.get(type) ?? new Set()).add(streamForSubject(source.subject)));
    }
    expect([...streams.keys()].sort()).toEqual([
      'charge',
      'dispute',
      'installment_plan',
      'kyc_case',
      'order',
      'payout_request',
      'subscription',
      'wallet',
    ]);
    for (const [type, of] of streams) expect([type, of.size]).toEqual([type, 1]);
  });
});
