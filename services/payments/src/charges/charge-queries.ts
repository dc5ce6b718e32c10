import { PlatformError, type Mode } from '@ppay/kernel';
import { decodeCursor, listKeyOf, pageOf, pageSize } from '../list-pages';
import type { ChargeRepository } from '../ports';
import type { ChargeRecord, ChargeStatus } from './charge';

export interface ChargeListInput {
  status?: ChargeStatus;
  reference?: string;
  from?: Date;
  to?: Date;
  limit?: number;
  cursor?: string;
}

/** The position of a charge in its merchant's list, newest first (list-pages.ts). */
export function chargeListKey(c: Pick<ChargeRecord, 'created_at' | 'charge_id'>): string {
  return listKeyOf(c.created_at, c.charge_id);
}

/**
 * A merchant reads its charges (GET /payments/charges, GET /payments/charges/{id}): one-time charges,
 * hosted-checkout payments and renewals alike, in the calling key's mode. Anyone else's is 404.
 */
export class ChargeQueries {
  constructor(private readonly charges: Pick<ChargeRepository, 'findForMerchant' | 'listForMerchant'>) {}

  async get(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord> {
    const charge = await this.charges.findForMerchant(merchantId, mode, chargeId);
    if (!charge) throw new PlatformError('CHARGE_NOT_FOUND', undefined, { param: 'charge_id' });
    return charge;
  }

  async list(merchantId: number, mode: Mode, input: ChargeListInput) {
    const limit = pageSize(input.limit);
    const read = await this.charges.listForMerchant(merchantId, mode, {
      status: input.status,
      reference: input.reference,
      from: input.from,
      to: input.to,
      after: input.cursor ? decodeCursor(input.cursor, 'ch') : undefined,
      limit: limit + 1,
    });
    const { items, ...page } = pageOf(read, limit, chargeListKey);
    return { charges: items, ...page };
  }
}
