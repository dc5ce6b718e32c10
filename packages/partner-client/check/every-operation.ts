/**
 * One typed call per operation of the OpenAPI document, each with a body the document describes
 * (the spec's shapes, aliases and documented extras included). Never run: it only has to compile
 * under --strict (`npm run test:partner-client`); a unit test checks that every operation is here.
 */
import { createPartnerClient } from '../src';

const partner = createPartnerClient({ baseUrl: 'http://localhost:8080', apiKey: 'pk_sandbox_…' });
const dashboard = createPartnerClient({
  baseUrl: 'http://localhost:8080',
  userToken: 'eyJ…',
  headers: { 'X-Environment': 'sandbox' },
});
const admin = createPartnerClient({ baseUrl: 'http://localhost:8080', userToken: 'eyJ…' });
const merchantId = 42;

export const everyOperation = [
  () => partner.GET('/api/v1/partner/account'),
  () =>
    partner.POST('/api/v1/partner/payments/charge', {
      body: {
        amount: 500_000,
        currency: 'NGN',
        total_amount: 500_000,
        total_currency: 'NGN',
        reference: 'order-1001',
        description: 'Two loaves',
        callback_url: 'https://shop.example.com/paid',
        customer: {
          email: 'ada@example.com',
          first_name: 'Ada',
          last_name: 'Obi',
          country: 'NG',
          phone: '+2348012345678',
        },
        metadata: { cart_id: 'c_9', items: 2, gift: false },
        sub_merchant_id: 7,
      },
      // Honoured on every POST: a retry with the same key answers the first charge.
      headers: { 'Idempotency-Key': 'charge-order-1001' },
    }),
  () =>
    partner.POST('/api/v1/partner/payments/charges/{charge_id}/refunds', {
      params: { path: { charge_id: 'ch_1' } },
      body: { amount: 2_500, reason: 'damaged' },
    }),
  () =>
    partner.GET('/api/v1/partner/payments/charges/{charge_id}/refunds', { params: { path: { charge_id: 'ch_1' } } }),
  () =>
    partner.GET('/api/v1/partner/payments/charges', {
      params: { query: { status: 'succeeded', reference: 'order-1001', limit: 20 } },
    }),
  () => partner.GET('/api/v1/partner/payments/charges/{charge_id}', { params: { path: { charge_id: 'ch_1' } } }),
  () =>
    partner.GET('/api/v1/partner/disputes', {
      params: { query: { status: 'needs_response', charge_id: 'ch_1', limit: 20 } },
    }),
  () => partner.GET('/api/v1/partner/disputes/{dispute_id}', { params: { path: { dispute_id: 'dp_1' } } }),
  () =>
    partner.POST('/api/v1/partner/disputes/{dispute_id}/evidence', {
      params: { path: { dispute_id: 'dp_1' } },
      body: {
        customer_name: 'Ada Obi',
        customer_email: 'ada@example.com',
        product_description: 'Two loaves',
        shipping_carrier: 'GIG',
        shipping_tracking_number: 'T123',
        receipt_url: 'https://shop.example.com/r/1001',
        submit: true,
      },
    }),
  () => partner.POST('/api/v1/partner/disputes/{dispute_id}/accept', { params: { path: { dispute_id: 'dp_1' } } }),
  () =>
    partner.POST('/api/v1/partner/sandbox/charges/{charge_id}/dispute', {
      params: { path: { charge_id: 'ch_1' } },
      body: { reason: 'fraudulent', amount: 500_000 },
    }),
  () =>
    partner.POST('/api/v1/partner/sandbox/disputes/{dispute_id}/expire', { params: { path: { dispute_id: 'dp_1' } } }),
  () =>
    partner.POST('/api/v1/partner/sandbox/disputes/{dispute_id}/{outcome}', {
      params: { path: { dispute_id: 'dp_1', outcome: 'won' } },
    }),
  () =>
    partner.POST('/api/v1/partner/payments/sessions', {
      body: {
        amount: 500_000,
        currency: 'NGN',
        product_name: 'Bread club',
        customer: { email: 'ada@example.com', first_name: 'Ada' },
        success_url: 'https://shop.example.com/ok',
        cancel_url: 'https://shop.example.com/cancel',
        subscription_frequency_key: 'monthly',
        trial_days: 7,
        metadata: { plan: 'gold' },
      },
    }),
  () => partner.GET('/api/v1/partner/payments/sessions/{session_id}', { params: { path: { session_id: 'cs_1' } } }),
  () =>
    partner.POST('/api/v1/partner/sandbox/charges/{charge_id}/{outcome}', {
      params: { path: { charge_id: 'ch_1', outcome: 'succeed' } },
    }),
  () =>
    partner.GET('/api/v1/partner/products/{product_id}/pricing', {
      params: { path: { product_id: 3 }, query: { currency: 'USD', customer_country: 'NG' } },
    }),
  () =>
    partner.GET('/api/v1/partner/pricing/calculate', {
      params: { query: { amount: 1_000, target_currency: 'NGN', source_currency: 'USD' } },
    }),
  () => partner.GET('/api/v1/partner/products', { params: { query: { type: 'physical', active: true, limit: 20 } } }),
  () =>
    partner.POST('/api/v1/partner/products', {
      body: {
        title: 'Sourdough',
        description: 'A loaf',
        type: 'physical',
        price: { amount: 250_000, currency: 'NGN' },
        variations: [{ name: 'Large', price: { amount: 300_000, currency: 'NGN' }, stock: 10 }],
        stock: 40,
        shipping: { fee: { amount: 50_000, currency: 'NGN' }, countries: ['NG'] },
        active: true,
      },
    }),
  () => partner.GET('/api/v1/partner/products/{product_id}', { params: { path: { product_id: 3 } } }),
  () =>
    partner.PATCH('/api/v1/partner/products/{product_id}', {
      params: { path: { product_id: 3 } },
      body: { title: 'Sourdough loaf', stock_adjustment: -2, variation_id: 'var_1' },
    }),
  () => partner.DELETE('/api/v1/partner/products/{product_id}', { params: { path: { product_id: 3 } } }),
  () =>
    partner.GET('/api/v1/partner/orders', {
      params: { query: { status: 'paid', product_id: 3, from: '2026-11-01T00:00:00Z', limit: 20 } },
    }),
  () => partner.GET('/api/v1/partner/orders/{order_id}', { params: { path: { order_id: 'ord_1' } } }),
  () =>
    partner.POST('/api/v1/partner/orders/{order_id}/fulfil', {
      params: { path: { order_id: 'ord_1' } },
      body: { carrier: 'DHL', tracking_number: 'JD0001', tracking_url: 'https://track.example/JD0001' },
    }),
  () => partner.POST('/api/v1/partner/orders/{order_id}/deliver', { params: { path: { order_id: 'ord_1' } } }),
  () =>
    partner.GET('/api/v1/partner/installment-plans', {
      params: { query: { status: 'active', customer_email: 'ada@example.com', limit: 20 } },
    }),
  () => partner.GET('/api/v1/partner/installment-plans/{plan_id}', { params: { path: { plan_id: 'ip_1' } } }),
  () => partner.POST('/api/v1/partner/installment-plans/{plan_id}/cancel', { params: { path: { plan_id: 'ip_1' } } }),
  () =>
    partner.POST('/api/v1/partner/sandbox/installment-plans/{plan_id}/advance', {
      params: { path: { plan_id: 'ip_1' } },
      body: { to: '2027-01-31T10:00:00Z' },
    }),
  () =>
    partner.POST('/api/v1/partner/orders/{order_id}/cancel', {
      params: { path: { order_id: 'ord_1' } },
      body: { reason: 'Out of stock at the warehouse' },
    }),
  () =>
    partner.GET('/api/v1/partner/subscriptions', {
      params: { query: { status: 'active', limit: 20, offset: 0, sort_by: 'created_at', sort_order: 'DESC' } },
    }),
  () =>
    partner.GET('/api/v1/partner/subscriptions/{subscription_id}', { params: { path: { subscription_id: 'sub_1' } } }),
  () =>
    partner.PATCH('/api/v1/partner/subscriptions/{subscription_id}/cancel', {
      params: { path: { subscription_id: 'sub_1' }, query: { at_period_end: true } },
    }),
  () =>
    partner.PATCH('/api/v1/partner/subscriptions/{subscription_id}/pause', {
      params: { path: { subscription_id: 'sub_1' } },
    }),
  () =>
    partner.PATCH('/api/v1/partner/subscriptions/{subscription_id}/resume', {
      params: { path: { subscription_id: 'sub_1' } },
    }),
  () =>
    partner.POST('/api/v1/partner/sandbox/subscriptions', {
      body: {
        amount: 500_000,
        currency: 'NGN',
        product_name: 'Bread club',
        customer: { email: 'ada@example.com' },
        subscription_frequency_key: 'monthly',
        card_number: '4242424242424242',
      },
    }),
  () =>
    partner.POST('/api/v1/partner/sandbox/subscriptions/{subscription_id}/advance', {
      params: { path: { subscription_id: 'sub_1' } },
      body: { to: '2027-01-31T10:00:00Z' },
    }),
  () =>
    partner.POST('/api/v1/partner/marketplace/setup', {
      body: { marketplace_name: 'Market', default_commission_rate: 5 },
    }),
  () =>
    partner.POST('/api/v1/partner/marketplace/merchants', {
      body: {
        email: 'shop@example.com',
        business_name: 'Shop',
        country: 'NG',
        baseline_currency: 'NGN',
        commission_rate: 2.5,
      },
    }),
  () =>
    partner.GET('/api/v1/partner/marketplace/merchants', {
      params: { query: { status: 'active', page: 1, limit: 20 } },
    }),
  () =>
    partner.GET('/api/v1/partner/marketplace/invitations', {
      params: { query: { direction: 'sent', status: 'pending', page: 1, limit: 20 } },
    }),
  () => partner.POST('/api/v1/partner/marketplace/invitations/accept', { body: { invite_token: 'inv_1' } }),
  () => partner.POST('/api/v1/partner/marketplace/invitations/decline', { body: { invite_token: 'inv_1' } }),
  () => partner.POST('/api/v1/partner/marketplace/invitations/cancel', { body: { invite_token: 'inv_1' } }),
  () => partner.DELETE('/api/v1/partner/marketplace/merchants/{merchantId}', { params: { path: { merchantId } } }),
  () =>
    partner.POST('/api/v1/partner/marketplace/merchants/{merchantId}/reactivate', { params: { path: { merchantId } } }),
  () =>
    partner.DELETE('/api/v1/partner/marketplace/merchants/{merchantId}/delete', { params: { path: { merchantId } } }),
  () =>
    partner.PATCH('/api/v1/partner/marketplace/merchants/{merchantId}/commission', {
      params: { path: { merchantId } },
      body: { commission_rate: 3.75 },
    }),
  () => partner.GET('/api/v1/partner/marketplace/merchants/{merchantId}/balance', { params: { path: { merchantId } } }),
  () =>
    partner.POST('/api/v1/partner/marketplace/payouts', {
      body: { amount: 100_000, currency: 'NGN', reference: 'po-1', payout_method: 'bank_transfer' },
    }),
  () => partner.GET('/api/v1/partner/balance'),
  () =>
    partner.POST('/api/v1/partner/sandbox/payouts/{reference}/{outcome}', {
      params: { path: { reference: 'po-1', outcome: 'paid' } },
    }),
  () =>
    partner.POST('/api/v1/partner/marketplace/merchants/{merchantId}/kyc', {
      params: { path: { merchantId } },
      body: {
        country: 'NG',
        account_type: 'individual',
        owner: {
          first_name: 'Ada',
          last_name: 'Obi',
          date_of_birth: '1990-01-31',
          phone_number: '+2348012345678',
          email: 'ada@example.com',
          id_type: 'nin',
          id_number: '12345678901',
          id_document_url: 'https://files.example.com/id.png',
          selfie_url: 'https://files.example.com/selfie.png',
          address: { street: '1 Marina', city: 'Lagos', state: 'Lagos', postal_code: '100001', country: 'NG' },
        },
        bank_account: { bank_name: 'Access Bank', account_number: '0690000031', account_name: 'Ada Obi' },
      },
    }),
  () => partner.GET('/api/v1/partner/marketplace/merchants/{merchantId}/kyc', { params: { path: { merchantId } } }),
  () =>
    partner.POST('/api/v1/partner/sandbox/kyc/{submission_id}/{action}', {
      params: { path: { submission_id: 1, action: 'request_info' } },
      body: { message: 'Upload a clearer ID' },
    }),
  () => partner.GET('/api/v1/partner/marketplace/payout/banks', { params: { query: { currency: 'NGN' } } }),
  () =>
    partner.POST('/api/v1/partner/marketplace/merchants/{merchantId}/payout', {
      params: { path: { merchantId } },
      body: { settlement_bank: 'Access Bank', account_number: '0690000031', account_name: 'Ada Obi' },
    }),
  () =>
    partner.PATCH('/api/v1/partner/marketplace/merchants/{merchantId}/payout', {
      params: { path: { merchantId } },
      body: { institution_id: '044', account_number: '0690000031', account_name: 'Ada Obi' },
    }),
  () =>
    partner.GET('/api/v1/partner/events', {
      params: { query: { type: 'payment.succeeded,payment.failed', delivery_status: 'failed', limit: 20 } },
    }),
  () => partner.GET('/api/v1/partner/events/{event_id}', { params: { path: { event_id: 'evt_1' } } }),
  () =>
    partner.GET('/api/v1/partner/events/{event_id}/deliveries/{delivery_id}/attempts', {
      params: { path: { event_id: 'evt_1', delivery_id: 'dlv_1' }, query: { limit: 10 } },
    }),
  () =>
    partner.GET('/api/v1/partner/events/{event_id}/deliveries/{delivery_id}/attempts/{number}', {
      params: { path: { event_id: 'evt_1', delivery_id: 'dlv_1', number: 1 } },
    }),
  () => partner.POST('/api/v1/partner/events/{event_id}/resend', { params: { path: { event_id: 'evt_1' } } }),
  () =>
    partner.POST('/api/v1/partner/webhooks/recover', {
      body: { since: '2026-05-01T00:00:00Z', until: '2026-05-02T00:00:00Z', dry_run: true },
    }),
  () =>
    partner.GET('/api/v1/partner/events/stream', {
      params: { query: { type: 'payment.succeeded' }, header: { 'last-event-id': 'c1' } },
      parseAs: 'stream',
    }),
  () =>
    dashboard.POST('/api/v1/partner/create-api-key', {
      body: { type: 'sandbox', name: 'Shop', webhook_url: 'https://shop.example.com/hooks', api_version: '2026-03-27' },
    }),
  () => dashboard.GET('/api/v1/partner/api-keys'),
  () => dashboard.DELETE('/api/v1/partner/api-keys/{id}', { params: { path: { id: 'key_1' } } }),
  () =>
    dashboard.PUT('/api/v1/partner/api-keys/{id}/toggle-status', {
      params: { path: { id: 'key_1' } },
      body: { enabled: false },
    }),
  () =>
    dashboard.PUT('/api/v1/partner/api-keys/{id}/webhook', {
      params: { path: { id: 'key_1' } },
      body: { webhook_url: 'https://shop.example.com/hooks', api_version: '2026-03-27' },
    }),
  () =>
    dashboard.POST('/api/v1/partner/api-keys/{id}/regenerate-webhook-secret', {
      params: { path: { id: 'key_1' } },
      body: { expire_previous: true },
    }),
  () => dashboard.POST('/api/v1/partner/api-keys/{id}/webhook/test', { params: { path: { id: 'key_1' } } }),
  () => dashboard.GET('/api/v1/partner/account/settings'),
  () => dashboard.PATCH('/api/v1/partner/account/settings', { body: { customer_pays_fees: true } }),
  () =>
    dashboard.POST('/api/v1/marketplace/merchants/{merchantId}/payouts/{reference}/approve', {
      params: { path: { merchantId, reference: 'po-1' } },
    }),
  () =>
    dashboard.POST('/api/v1/marketplace/merchants/{merchantId}/payouts/{reference}/reject', {
      params: { path: { merchantId, reference: 'po-1' } },
      body: { reason: 'Account name does not match' },
    }),
  () =>
    admin.POST('/api/v1/admin/payouts/{merchantId}/{reference}/{outcome}', {
      params: { path: { merchantId, reference: 'po-1', outcome: 'paid' } },
    }),
  () =>
    admin.GET('/api/v1/admin/kyc/submissions', { params: { query: { status: 'pending_review', page: 1, limit: 20 } } }),
  () => admin.GET('/api/v1/admin/kyc/submissions/{submission_id}', { params: { path: { submission_id: 1 } } }),
  () =>
    admin.POST('/api/v1/admin/kyc/submissions/{submission_id}/{action}', {
      params: { path: { submission_id: 1, action: 'approve' } },
      body: {},
    }),
];
