import { isSupportedApiVersion } from './api-versions';
import { deliverableTo, renderEvent, usesCurrentShape } from './renderers';
import type { WebhookEventRecord } from './webhook-event';
import { REFUNDED_DATA } from '../memory-ports.test-util';
import { paymentEvent } from '../memory-world.test-util';

const event = (event_type: string, data: Record<string, unknown> = REFUNDED_DATA): WebhookEventRecord => ({
  event_id: 'evt_00000000-0000-5000-8000-000000000000',
  event_type,
  merchant_id: 42,
  mode: 'live',
  occurred_at: new Date('2026-05-01T10:00:00Z'),
  object_type: 'charge',
  object_id: 'ch_1',
  sequence: 3,
  data,
  source_event_id: 's',
  created_at: new Date(),
});

describe('api versions', () => {
  it('accepts any real date up to the latest release and picks the newest structure on or before it', () => {
    for (const ok of ['2026-03-27', '2026-03-26', '2025-06-01', '2024-02-29'])
      expect(isSupportedApiVersion(ok)).toBe(true);
    for (const bad of ['2026-03-28', '2027-01-01', '2025-02-29', '2025-13-01', 'latest', '1999-12-31', ''])
      expect(isSupportedApiVersion(bad)).toBe(false);
    expect(usesCurrentShape('2026-03-27')).toBe(true);
    expect(usesCurrentShape('2026-03-26')).toBe(false);
  });

  it('renders payment.refunded as refund.completed before 2026-03-27, with the 6.6 envelope', () => {
    const legacy = renderEvent(event('payment.refunded'), '2025-06-01');
    expect(legacy.event_type).toBe('refund.completed');
    expect(Object.keys(JSON.parse(legacy.body))).toEqual([
      'event_id',
      'event_type',
      'occurred_at',
      'is_live',
      'sequence',
      'data',
    ]);
    const current = renderEvent(event('payment.refunded'), '2026-03-27');
    expect(JSON.parse(current.body)).toMatchObject({
      api_version: '2026-03-27',
      event_type: 'payment.refunded',
      is_live: true,
      business_id: '42',
      sequence: 3,
    });
  });

  it('renders the refund sub-object of payment.refunded, and its 6.6 flat shape before 2026-03-27', () => {
    const current = JSON.parse(renderEvent(event('payment.refunded'), '2026-03-27').body).data;
    expect(current).toEqual({
      charge_id: 'ch_1',
      transaction_id: 'txn_1',
      reference: 'order-1',
      gateway: 'naira_gateway',
      sub_merchant_id: null,
      amount_captured: { amount: 10_000, currency: 'NGN' },
      amount_refunded: { amount: 2_500, currency: 'NGN' },
      refunded: false,
      refund: {
        refund_id: 're_1',
        amount: { amount: 2_500, currency: 'NGN' },
        status: 'succeeded',
        reason: 'damaged',
        created_at: '2026-05-01T09:59:00.000Z',
      },
      metadata: { cart: 9 },
      refunded_at: '2026-05-01T10:00:00.000Z',
    });
    const legacy = JSON.parse(renderEvent(event('payment.refunded'), '2025-06-01').body).data;
    expect(legacy).toEqual({
      transaction_id: 'txn_1',
      refund_id: 're_1',
      amount: 2_500,
      currency: 'NGN',
      status: 'success',
      reason: 'damaged',
      transaction_details: { payment_gateway: 'naira_gateway', created_at: '2026-05-01T10:00:00.000Z' },
    });
  });

  it('delivers new-in-2026-03-27 types only to keys on that version or later', () => {
    expect(deliverableTo('wallet.credited', '2026-03-27')).toBe(true);
    expect(deliverableTo('wallet.credited', '2026-01-01')).toBe(false);
    expect(deliverableTo('payment.failed', '2026-01-01')).toBe(true);
    expect(deliverableTo('unknown.type', '2026-03-27')).toBe(false);
  });

  it('renders payment.succeeded with the product object, and a physical product’s variation and quantity', () => {
    const data = {
      ...REFUNDED_DATA,
      breakdown: { merchant_gross: { amount: 1, currency: 'NGN' }, customer_paid: { amount: 1, currency: 'NGN' } },
      customer: { email: 'a@example.com', first_name: 'A', last_name: 'B' },
      product: { id: 9, title: 'Shirt', type: 'physical' },
      variation: { variation_id: 'var_xl', name: 'XL' },
      quantity: 2,
    };
    const current = JSON.parse(renderEvent(event('payment.succeeded', data), '2026-03-27').body).data;
    expect(current).toMatchObject({ product: data.product, variation: data.variation, quantity: 2 });
    const legacy = JSON.parse(renderEvent(event('payment.succeeded', data), '2026-01-01').body).data;
    expect(legacy.transaction_details).toMatchObject({ product_title: 'Shirt', product_type: 'physical' });
    expect(legacy).not.toHaveProperty('quantity');
  });

  it('renders order.* as the order, for 2026-03-27 keys only', () => {
    const order = { order_id: 'ord_1', status: 'fulfilled', fulfilments: [{ carrier: 'DHL' }] };
    const rendered = renderEvent(event('order.fulfilled', { merchant_id: 42, order }), '2026-03-27');
    expect(JSON.parse(rendered.body)).toMatchObject({ event_type: 'order.fulfilled', business_id: '42', data: order });
    expect([deliverableTo('order.created', '2026-03-27'), deliverableTo('order.created', '2026-01-01')]).toEqual([
      true,
      false,
    ]);
  });

  it('renders dispute.* as the charge id and the dispute object, for 2026-03-27 keys only', () => {
    const dispute = {
      dispute_id: 'dp_1',
      charge_id: 'ch_1',
      status: 'needs_response',
      amount: { amount: 5, currency: 'NGN' },
    };
    const rendered = renderEvent(
      event('dispute.created', { charge_id: 'ch_1', merchant_id: 42, dispute }),
      '2026-03-27',
    );
    expect(JSON.parse(rendered.body)).toMatchObject({
      event_type: 'dispute.created',
      business_id: '42',
      sequence: 3,
      data: { charge_id: 'ch_1', dispute },
    });
    // The receiving merchant is the envelope's business_id, not repeated in data.
    expect(JSON.parse(rendered.body).data).not.toHaveProperty('merchant_id');
    for (const type of [
      'dispute.created',
      'dispute.updated',
      'dispute.closed',
      'dispute.funds_withdrawn',
      'dispute.funds_reinstated',
    ]) {
      expect([type, deliverableTo(type, '2026-03-27'), deliverableTo(type, '2026-03-26')]).toEqual([type, true, false]);
    }
  });
});

describe('installments (issue 26)', () => {
  const part = paymentEvent('evt_src', {
    payment_type: 'installment',
    installment: { plan_id: 'ip_1', number: 2, count: 3, amount_remaining: { amount: 100_000, currency: 'NGN' } },
  }).data as unknown as Record<string, unknown>;

  it('payment.* carries the installment (2026-03-27), or its three values flat in transaction_details (6.6)', () => {
    const current = JSON.parse(renderEvent(event('payment.succeeded', part), '2026-03-27').body).data;
    expect(current).toMatchObject({
      payment_type: 'installment',
      installment: { plan_id: 'ip_1', number: 2, count: 3, amount_remaining: { amount: 100_000, currency: 'NGN' } },
    });
    const legacy = JSON.parse(renderEvent(event('payment.failed', part), '2025-06-01').body).data;
    expect(legacy.transaction_details).toEqual({
      payment_type: 'installment',
      product_type: null,
      product_title: null,
      payment_gateway: 'cardgateway',
      created_at: '2026-05-01T10:00:00.000Z',
      installment_plan_id: 'ip_1',
      installment_number: 2,
      installment_count: 3,
    });
  });

  it('other payments say installment: null (2026-03-27) and keep their 6.6 details as they were', () => {
    const oneTime = paymentEvent('evt_src').data as unknown as Record<string, unknown>;
    expect(JSON.parse(renderEvent(event('payment.succeeded', oneTime), '2026-03-27').body).data.installment).toBeNull();
    expect(
      Object.keys(
        JSON.parse(renderEvent(event('payment.succeeded', oneTime), '2025-06-01').body).data.transaction_details,
      ),
    ).toEqual(['payment_type', 'product_type', 'product_title', 'payment_gateway', 'created_at']);
  });

  it('installment_plan.* are sent in their resource shape to 2026-03-27 keys only', () => {
    const plan = { plan_id: 'ip_1', status: 'completed', amount_remaining: { amount: 0, currency: 'NGN' } };
    for (const type of ['created', 'completed', 'defaulted', 'cancelled'].map((t) => `installment_plan.${t}`)) {
      expect(deliverableTo(type, '2026-03-27')).toBe(true);
      expect(deliverableTo(type, '2026-03-26')).toBe(false);
      expect(JSON.parse(renderEvent(event(type, plan), '2026-03-27').body)).toMatchObject({
        event_type: type,
        data: plan,
      });
    }
  });
});
