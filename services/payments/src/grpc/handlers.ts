import { PlatformError, requireInternal, requireMerchant, requireMode, type UnaryHandlers } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { ChargeRecord, ChargeRequest, ChargeService } from '../domain/charges';
import type { LedgerRepository } from '../domain/ledger';
import type { OutcomeService } from '../domain/outcomes';
import { customerOf, metadataOf } from './mapping';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

const present = <T>(flag: string | undefined, value: T | undefined): T | undefined => (flag ? value : undefined);

function toChargeRequest(req: types.payments.CreateChargeRequest__Output): ChargeRequest {
  return {
    amount: present(req._amount, req.amount),
    currency: req.currency || undefined,
    total_amount: present(req._total_amount, req.total_amount),
    total_currency: req.total_currency || undefined,
    converted_total_amount: present(req._converted_total_amount, req.converted_total_amount),
    converted_total_currency: req.converted_total_currency || undefined,
    description: req.description || undefined,
    reference: req.reference || undefined,
    callback_url: req.callback_url || undefined,
    customer: customerOf(req.customer),
    metadata: metadataOf(req.metadata),
    preview: req.preview,
    sub_merchant_id: req.sub_merchant_id || undefined,
  };
}

function toCharge(c: ChargeRecord): types.payments.Charge {
  return {
    charge_id: c.id,
    payment_gateway: c.payment_gateway,
    client_secret: c.gateway?.client_secret ?? '',
    publishable_key: c.gateway?.publishable_key ?? '',
    gateway_account_id: c.gateway?.gateway_account_id ?? '',
    transaction_id: c.transaction_id,
    fee_details: c.fee,
    status: c.status,
  };
}

/** Thin adapters; later issues' RPCs (sessions, outcomes, balances) stay UNIMPLEMENTED. */
export function paymentsHandlers(charges: ChargeService, outcomes: OutcomeService, ledger: LedgerRepository): Handlers {
  return {
    async SimulateChargeOutcome(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const outcome = req.outcome === 'succeed' || req.outcome === 'fail' ? req.outcome : undefined;
      if (!outcome)
        throw new PlatformError('VALIDATION_FAILED', 'outcome must be succeed or fail', { param: 'outcome' });
      return toCharge(
        await outcomes.simulate(merchantId, requireMode(caller), req.charge_id, outcome, req.failure_reason),
      );
    },
    async GetWalletBalances(req, { caller }) {
      requireInternal(caller);
      const mode = req.mode === 'live' || req.mode === 'sandbox' ? req.mode : undefined;
      if (!mode) throw new PlatformError('VALIDATION_FAILED', 'mode must be sandbox or live', { param: 'mode' });
      return { balances: await ledger.balances(req.merchant_id, mode) };
    },
    async CreateCharge(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const outcome = await charges.create(merchantId, requireMode(caller), toChargeRequest(req));
      if (outcome.kind === 'charge') return { charge: toCharge(outcome.charge), replayed: outcome.replayed };
      const p = outcome.preview;
      return {
        preview: {
          payment_gateway: p.payment_gateway,
          mode: p.mode,
          is_international: p.is_international,
          business_country: p.business_country,
          customer_country: p.customer_country,
          customer_currency: p.customer.currency,
          customer_base_amount: p.customer.base_amount,
          customer_transaction_fee: p.customer.transaction_fee,
          customer_total_charged: p.customer.total_charged,
          customer_pays_fees: p.customer.pays_fees,
          business_currency: p.business.currency,
          business_priced_amount: p.business.priced_amount,
          conversion: p.conversion ?? undefined,
        },
        replayed: false,
      };
    },
  };
}
