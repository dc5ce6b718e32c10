import { isSubscriptionFrequency, money, requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { customerOf, metadataOf } from '../charges/payment-request.handlers';
import { offSessionChargeResource, type OffSessionCharge, type OffSessionChargeService } from './off-session-charges';
import { paymentMethodResource } from './payment-method';
import type { PaymentMethodService } from './payment-methods';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

function toOffSessionCharge(req: types.payments.ChargePaymentMethodRequest__Output): OffSessionCharge {
  return {
    payment_method_id: req.payment_method_id,
    price: money(Number(req.price?.amount ?? 0), req.price?.currency ?? ''),
    idempotency_key: req.idempotency_key,
    product: {
      id: req.product?._id ? Number(req.product.id) : null,
      title: req.product?.title ?? '',
      type: req.product?.type ?? 'subscription',
    },
    frequency: isSubscriptionFrequency(req.subscription_frequency_key) ? req.subscription_frequency_key : null,
    metadata: metadataOf(req.metadata),
    customer: customerOf(req.customer) ?? {},
    customer_present: req.customer_present,
    ...(req.installment && {
      installment: {
        plan_id: req.installment.plan_id,
        number: req.installment.number,
        count: req.installment.count,
        remaining_if_paid: money(
          Number(req.installment.remaining_if_paid?.amount ?? 0),
          req.installment.remaining_if_paid?.currency ?? req.price?.currency ?? '',
        ),
      },
    }),
  };
}

/** Saved payment methods: off-session charges for subscription renewals and the sandbox helper. */
export function paymentMethodHandlers(
  methods: PaymentMethodService,
  offSession: OffSessionChargeService,
): Partial<Handlers> {
  return {
    async ChargePaymentMethod(req, { caller, deadline }) {
      const { merchantId } = requireMerchant(caller);
      const result = await offSession.charge(merchantId, requireMode(caller), toOffSessionCharge(req), { deadline });
      return toWire(offSessionChargeResource(result));
    },
    async CreateSandboxPaymentMethod(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const m = await methods.createSandbox(merchantId, requireMode(caller), req.card_number, req.customer_email);
      return toWire(paymentMethodResource(m));
    },
  };
}
