import type { ClaimOptions } from './ports';

/**
 * A filter over due work, oldest first, that keeps what a claim may take: at most `limit` in all,
 * within each key's and each merchant's room (see SendSlots), so a claim never takes more than the
 * slots it can run.
 */
export function roomPicker(
  o: Pick<ClaimOptions, 'limit' | 'keyRoom' | 'perKeyLimit' | 'merchantRoom' | 'perMerchantLimit'>,
) {
  const keyRoom = new Map(o.keyRoom);
  const merchantRoom = new Map(o.merchantRoom);
  let taken = 0;
  return (d: { key_id: string; merchant_id: number }): boolean => {
    if (taken >= o.limit) return false;
    const key = keyRoom.get(d.key_id) ?? o.perKeyLimit;
    const merchant = merchantRoom.get(d.merchant_id) ?? o.perMerchantLimit;
    if (key <= 0 || merchant <= 0) return false;
    keyRoom.set(d.key_id, key - 1);
    merchantRoom.set(d.merchant_id, merchant - 1);
    taken++;
    return true;
  };
}
