import { randomBytes } from 'node:crypto';
import { SecretBox, type EncryptedSecret } from '@ppay/kernel';
import { OPERATOR, operatorWorld, sandbox, SUB } from '../memory-ports.test-util';
import { inHouseBody } from '../submissions/submission-bodies.test-util';
import type { KycCaseRecord } from './kyc-case';
import { ReencryptionJob, type ReencryptionMetrics } from './reencryption';

/** Every sealed value of a case, wherever it sits. */
function sealedValues(value: unknown, out: EncryptedSecret[] = []): EncryptedSecret[] {
  if (value && typeof value === 'object') {
    if ('key_id' in value && 'data' in value) out.push(value as EncryptedSecret);
    else for (const v of Object.values(value)) sealedValues(v, out);
  }
  return out;
}

const personal = {
  phone_number: '08031234567',
  email: 'john@example.com',
  id_document_url: 'https://files.example.com/id.png',
  address: { street: '1 Marina', city: 'Lagos', state: 'Lagos', postal_code: '101001', country: 'NG' },
};
const business = {
  account_type: 'registered_business',
  business: { registered_name: 'Adebayo Foods Ltd', registration_number: 'RC123456', tax_id: 'TIN-0042' },
};

describe('KYC personal data at rest with a key ring (Hardening 2 item 9)', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  async function caseSealedUnderK1() {
    const before = operatorWorld(new SecretBox(k1, 'k1'));
    const { kyc } = await before.submissions.submit(
      sandbox,
      SUB,
      inHouseBody({}, { ...business, owner: { ...inHouseBody().owner, ...personal } }),
    );
    await before.payoutAccounts.setup(sandbox, SUB, {});
    return (await before.cases.findById(kyc.id))!;
  }

  /** A world whose ring is `box`, holding `stored` as its only case. */
  function worldWith(box: SecretBox, stored: KycCaseRecord) {
    const w = operatorWorld(box);
    w.cases.docs.set(stored.id, structuredClone(stored));
    return w;
  }

  it('rotating the key never fails a read; the job moves every value to the current key; then the old key can go', async () => {
    const stored = await caseSealedUnderK1();
    const values = sealedValues(stored);
    // ID number, personal fields, business identifiers, KYC account number, payout account number.
    expect(values.map((v) => v.key_id)).toEqual(['k1', 'k1', 'k1', 'k1', 'k1']);
    const rotated = worldWith(new SecretBox(k2, 'k2', new Map([['k1', k1]])), stored);
    const review = rotated.reviews.reviewOf(stored);
    expect(review).toMatchObject({
      personal_data_unavailable: false,
      owner: { date_of_birth: '1990-05-17', email: 'john@example.com', id_document_url: personal.id_document_url },
      business: { registration_number: 'RC123456', tax_id: 'TIN-0042' },
    });
    const passes: { outdated: number; unreadable: number }[] = [];
    let moved = 0;
    const metrics: ReencryptionMetrics = { resealed: (n) => (moved += n), passFinished: (l) => passes.push(l) };
    const job = new ReencryptionJob({
      cases: rotated.cases,
      ring: new SecretBox(k2, 'k2', new Map([['k1', k1]])),
      metrics,
    });
    expect(await job.run()).toBe(5);
    expect([moved, passes]).toEqual([5, [{ outdated: 0, unreadable: 0 }]]);
    const after = (await rotated.cases.findById(stored.id))!;
    expect(sealedValues(after).map((v) => v.key_id)).toEqual(['k2', 'k2', 'k2', 'k2', 'k2']);
    expect(after.version).toBe(stored.version + 1);
    expect(await job.run()).toBe(0); // nothing left to move
    // k1 has left the ring: everything still reads.
    const without = worldWith(new SecretBox(k2, 'k2'), after);
    expect(without.reviews.reviewOf(after)).toMatchObject({
      personal_data_unavailable: false,
      owner: { phone_number: '+2348031234567' },
    });
  });

  it('a value under a key the ring lost reads as null, flagged, never an error; the job counts it', async () => {
    const stored = await caseSealedUnderK1();
    const w = worldWith(new SecretBox(k2, 'k2'), stored);
    const review = w.reviews.reviewOf(stored);
    expect(review.personal_data_unavailable).toBe(true);
    expect(review.owner).toMatchObject({ first_name: 'John', date_of_birth: null, email: null });
    expect(review.business).toEqual({ registered_name: 'Adebayo Foods Ltd', registration_number: null, tax_id: null });
    const passes: unknown[] = [];
    const job = new ReencryptionJob({
      cases: w.cases,
      ring: new SecretBox(k2, 'k2'),
      metrics: { resealed: () => undefined, passFinished: (l) => passes.push(l) },
    });
    expect(await job.run()).toBe(0);
    expect(passes).toEqual([{ outdated: 0, unreadable: 5 }]);
  });

  it('seals the personal data of cases stored before it was sealed', async () => {
    const sealedCase = await caseSealedUnderK1();
    // A case as the previous version stored it: personal fields and business identifiers in clear.
    const { personal_sealed: _p, ...owner } = sealedCase.owner!;
    const { identifiers_sealed: _i, ...biz } = sealedCase.business!;
    const legacy: KycCaseRecord = {
      ...sealedCase,
      owner: { ...owner, date_of_birth: '1990-05-17', email: 'john@example.com', phone_number: null },
      business: { ...biz, registration_number: 'RC123456', tax_id: null, address: null },
    };
    const ring = new SecretBox(k2, 'k2', new Map([['k1', k1]]));
    const w = worldWith(ring, legacy);
    expect(w.reviews.reviewOf(legacy).owner).toMatchObject({ date_of_birth: '1990-05-17' }); // read as stored
    await new ReencryptionJob({ cases: w.cases, ring }).run();
    const after = (await w.cases.findById(legacy.id))!;
    const json = JSON.stringify(after);
    for (const clear of ['1990-05-17', 'john@example.com', 'RC123456']) expect(json).not.toContain(clear);
    expect(w.reviews.reviewOf(after)).toMatchObject({
      owner: { date_of_birth: '1990-05-17', email: 'john@example.com' },
      business: { registration_number: 'RC123456' },
    });
    expect(after.marketplace_id).toBe(OPERATOR);
  });

  it('a case changed meanwhile is taken again on the next pass', async () => {
    const stored = await caseSealedUnderK1();
    const ring = new SecretBox(k2, 'k2', new Map([['k1', k1]]));
    const w = worldWith(ring, stored);
    w.cases.loseNextSave = true;
    const passes: { outdated: number }[] = [];
    const job = new ReencryptionJob({
      cases: w.cases,
      ring,
      metrics: { resealed: () => undefined, passFinished: (l) => passes.push(l) },
    });
    expect(await job.run()).toBe(0);
    expect(passes).toEqual([{ outdated: 5, unreadable: 0 }]);
    expect(await job.run()).toBe(5);
  });
});
