import { PlatformError, type Mode, type Money } from '@ppay/kernel';
import type { MerchantService } from '../merchants/merchants';
import type { RelationshipRepository } from '../ports';
import type { BalanceView, PayoutAccounts, PayoutView, WalletPayouts } from './ports';

/**
 * The operator- and sub-merchant-facing money operations (spec 4.9 balance, 4.10, payout initiation).
 * Marketplace decides who may act (relationships are its documents); payments owns the money
 * (wallets, payout requests) and kyc the payout account.
 */
export class MarketplacePayouts {
  constructor(
    private readonly merchants: MerchantService,
    private readonly relationships: RelationshipRepository,
    private readonly money: WalletPayouts,
    private readonly accounts: PayoutAccounts,
  ) {}

  /** Spec 4.9 / 7.5: an active sub-merchant of this operator; anyone else's merchant is not found. */
  async balance(
    operatorId: number,
    mode: Mode,
    merchantId: number,
  ): Promise<{ merchant_id: number; balances: BalanceView[] }> {
    await this.merchants.requireOperator(operatorId);
    const rel = await this.relationships.findByMerchant(merchantId, mode);
    if (!rel || rel.marketplace_id !== operatorId || rel.status !== 'active') {
      throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    }
    return { merchant_id: merchantId, balances: await this.money.balances(merchantId, mode) };
  }

  /**
   * The sub-merchant asks (its own key): an active relationship, approved KYC and a payout account in
   * the currency; gateway and method come from the account. payments reserves and stages it.
   */
  async initiate(
    merchantId: number,
    mode: Mode,
    input: { amount: Money; reference: string; payout_method?: string },
  ): Promise<PayoutView> {
    const rel = await this.relationships.findByMerchant(merchantId, mode);
    if (!rel || rel.status !== 'active') throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    const account = await this.accounts.account(merchantId, mode);
    if (account.kyc_status !== 'approved') throw new PlatformError('KYC_NOT_APPROVED');
    if (!account.payout_eligible) throw new PlatformError('PAYOUT_NOT_SET_UP');
    if (account.currency !== input.amount.currency) {
      throw new PlatformError(
        'PAYOUT_CURRENCY_MISMATCH',
        `currency must be ${account.currency}, the payout account currency`,
        {
          param: 'currency',
        },
      );
    }
    if (input.payout_method && input.payout_method !== account.payout_method) {
      throw new PlatformError(
        'VALIDATION_FAILED',
        `payout_method must be ${account.payout_method} for this payout account`,
        {
          param: 'payout_method',
        },
      );
    }
    return this.money.createPayout({
      merchant_id: merchantId,
      mode,
      amount: input.amount,
      reference: input.reference,
      marketplace_id: rel.marketplace_id,
      payment_gateway: account.payment_gateway,
      payout_method: account.payout_method,
      destination: account.destination,
    });
  }

  /** Spec 4.10 / 7.8: 404 without a relationship in that environment, 403 for another marketplace's. */
  async approve(operatorId: number, mode: Mode, merchantId: number, reference: string): Promise<PayoutView> {
    await this.permitted(operatorId, mode, merchantId);
    return this.money.approvePayout(merchantId, mode, reference, operatorId);
  }

  async reject(
    operatorId: number,
    mode: Mode,
    merchantId: number,
    reference: string,
    reason: string,
  ): Promise<PayoutView> {
    const trimmed = reason.trim();
    if (trimmed.length < 3 || trimmed.length > 500) {
      throw new PlatformError('VALIDATION_FAILED', 'reason must be 3 to 500 characters', { param: 'reason' });
    }
    await this.permitted(operatorId, mode, merchantId);
    return this.money.rejectPayout(merchantId, mode, reference, operatorId, trimmed);
  }

  private async permitted(operatorId: number, mode: Mode, merchantId: number): Promise<void> {
    await this.merchants.requireOperator(operatorId);
    const rel = await this.relationships.findByMerchant(merchantId, mode);
    if (!rel) throw new PlatformError('PAYOUT_REQUEST_NOT_FOUND');
    if (rel.marketplace_id !== operatorId) throw new PlatformError('PERMISSION_DENIED');
    if (rel.status !== 'active') throw new PlatformError('PAYOUT_REQUEST_NOT_FOUND');
  }
}
