// The README's example (scripts/partner-client-readme.js writes it), compiled by npm run test:partner-client.
import { createPartnerClient } from '../src';

export async function readmeExample(): Promise<void> {
  const api = createPartnerClient({ baseUrl: 'http://localhost:8080', apiKey: process.env.PPAY_API_KEY! });

  // Spec 4.1: charge ₦5,000 (minor units). The Idempotency-Key makes a retry answer the same charge.
  const charge = await api.POST('/api/v1/partner/payments/charge', {
    body: {
      amount: 500_000,
      currency: 'NGN',
      reference: 'order-1001',
      customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi', country: 'NG' },
      metadata: { cart_id: 'c_9' },
    },
    headers: { 'Idempotency-Key': 'order-1001' },
  });
  if (charge.error) throw new Error(`${charge.error.error.code}: ${charge.error.message}`);
  // charge_id is absent only from a preview (`preview: true`).
  const chargeId = charge.data.data.charge_id!;

  // Refund ₦1,500 of it (omit amount for the whole of what is left).
  const refund = await api.POST('/api/v1/partner/payments/charges/{charge_id}/refunds', {
    params: { path: { charge_id: chargeId } },
    body: { amount: 150_000, reason: 'damaged' },
    headers: { 'Idempotency-Key': 'order-1001-refund-1' },
  });
  if (refund.error) throw new Error(`${refund.error.error.code}: ${refund.error.message}`);
  console.log(refund.data.data.status);
}
