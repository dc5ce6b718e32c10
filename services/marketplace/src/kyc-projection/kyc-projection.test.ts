import type { KycCaseFacts, Mode } from '@ppay/kernel';
import { business, inMemoryMarketplace, type InMemoryMarketplace } from '../in-memory-marketplace.test-util';
import { relationshipResource } from '../relationships/relationship';

describe('KycProjection', () => {
  let w: InMemoryMarketplace;

  beforeEach(async () => {
    w = await inMemoryMarketplace();
  });

  it('records KYC outcomes per mode, newest version wins, and shows those of the relationship mode', async () => {
    const L: Mode = 'live';
    await w.relationships.setup(w.operator.id, L, { marketplace_name: 'Shop' });
    const a = (await w.relationships.link(w.operator.id, L, business('a@x.co'))).relationship.merchant_id;
    const facts = (mode: Mode, version: number, status: KycCaseFacts['status'], eligible: boolean): KycCaseFacts => ({
      submission_id: 7,
      merchant_id: a,
      marketplace_id: w.operator.id,
      mode,
      status,
      provider: 'service',
      settlement_currency: 'NGN',
      payout_eligible: eligible,
      version,
    });
    const at = new Date('2026-11-23T10:00:00Z');
    expect(await w.kyc.record(facts('live', 3, 'approved', true), at)).toBe(true);
    expect(await w.kyc.record(facts('live', 2, 'pending_review', false), at)).toBe(false);
    expect(await w.kyc.record(facts('live', 3, 'approved', true), at)).toBe(false);
    // A sandbox outcome is recorded for the sandbox and never shows on the live relationship.
    expect(await w.kyc.record(facts('sandbox', 4, 'pending_review', false), at)).toBe(true);
    const [view] = (await w.relationships.list(w.operator.id, L, 'active', 1, 20)).items;
    expect(relationshipResource(view!)).toMatchObject({ mode: 'live', kyc_status: 'approved', payouts_enabled: true });
    const other = await w.relationships.link(w.operator.id, L, business('b@x.co'));
    expect(relationshipResource(other)).toMatchObject({ kyc_status: 'not_started', payouts_enabled: false });
  });
});
