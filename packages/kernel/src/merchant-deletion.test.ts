import { deletionAckEventId, scopedFilter, type MerchantDataTarget } from './merchant-deletion';

const perMode: MerchantDataTarget = { collection: 'charges', filter: (id) => ({ merchant_id: id }), modeField: 'mode' };
const modeless: MerchantDataTarget = { collection: 'products', filter: (id) => ({ merchant_id: id }), modeField: null };
const scope = (every_mode: boolean) => ({
  deletion_id: 'del_1',
  merchant_id: 1001,
  mode: 'sandbox' as const,
  every_mode,
});

describe('merchant data purge scope', () => {
  it('a one-mode deletion filters by the mode and leaves data without a mode alone', () => {
    expect(scopedFilter(perMode, scope(false))).toEqual({ merchant_id: 1001, mode: 'sandbox' });
    expect(scopedFilter(modeless, scope(false))).toBeNull();
  });

  it('a whole-business deletion takes every mode and the data without one', () => {
    expect(scopedFilter(perMode, scope(true))).toEqual({ merchant_id: 1001 });
    expect(scopedFilter(modeless, scope(true))).toEqual({ merchant_id: 1001 });
  });

  it('acknowledgements have one event id per deletion and service (repeats are the same event)', () => {
    expect(deletionAckEventId('del_1', 'kyc')).toBe(deletionAckEventId('del_1', 'kyc'));
    expect(deletionAckEventId('del_1', 'kyc')).not.toBe(deletionAckEventId('del_1', 'payments'));
  });
});
