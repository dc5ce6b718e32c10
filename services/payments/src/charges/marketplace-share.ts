import { fractionOf, subtractMoney, type Money } from '@ppay/kernel';

/** A marketplace payment's product total split: the operator's commission and what the sub-merchant is credited. */
export function subMerchantShare(total: Money, commissionRate: string): { commission: Money; net: Money } {
  const commission = fractionOf(total, commissionRate);
  return { commission, net: subtractMoney(total, commission) };
}
