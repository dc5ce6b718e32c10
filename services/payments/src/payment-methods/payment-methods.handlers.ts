import { isSubscriptionFrequency, money, requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { PaymentMethodService } from './payment-methods';
import { customerOf, metadataOf } from '../charges/payment-request.handlers';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

/** Saved payment methods: off-session charges for subscription renewals and the sandbox helper. */
export function paymentMethodHandlers(methods: PaymentMethodService): Handlers {
  return {
    async ChargePaymentMethod(req, { caller, deadline }) {
      const { merchantId } = requireMerchant(caller);
      const frequency = req.subscription_frequency_key;
      const { charge, replayed } = await methods.chargeOffSession(
        merchantId,
        requireMode(caller),
        {
          payment_method_id: req.payment_method_id,
          price: money(Number(req.price?.amount ?? 0), req.price?.currency ?? ''),
          idempotency_key: req.idempotency_key,
          product: {
            id: req.product?._id ? Number(req.product.id) : null,
            title: req.product?.title ?? '',
            type: req.product?.type ?? 'subscription',
          },
          frequency: isSubscriptionFrequency(frequency) ? frequency : null,
          metadata: metadataOf(req.metadata),
          customer: customerOf(req.customer) ?? {},
          customer_present: req.customer_present,
        },
        { deadline },
      );
      return toWire({
        charge_id: charge.charge_id,
        transaction_id: charge.transaction_id,
        status: charge.status,
        decline_code: charge.failure_reason,
        completed_at: charge.completed_at,
        replayed,
      });
    },
    async CreateSandboxPaymentMethod(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const m = await methods.createSandbox(merchantId, requireMode(caller), req.card_number, req.customer_email);
      return toWire({
        payment_method_id: m.payment_method_id,
        brand: m.card.brand,
        last4: m.card.last4,
        customer_email: m.customer_email,
        created_at: m.created_at,
      });
    },
  };
}
