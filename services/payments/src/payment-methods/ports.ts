import type { Mode } from '@ppay/kernel';
import type { PaymentMethodRecord } from './payment-method';

export interface PaymentMethodRepository {
  /** Inserts; when the session already saved a method returns that one (a retried attempt). */
  insertOrGetBySession(method: PaymentMethodRecord): Promise<PaymentMethodRecord>;
  insert(method: PaymentMethodRecord): Promise<void>;
  findForMerchant(merchantId: number, mode: Mode, paymentMethodId: string): Promise<PaymentMethodRecord | null>;
}
