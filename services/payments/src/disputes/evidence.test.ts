import type { DisputeEvent } from '@ppay/kernel';
import { codeOf, rejectionOf } from '../errors.test-util';
import { EVIDENCE_TOTAL_MAX_BYTES, validateEvidence } from './evidence';
import { disputeWorld } from './disputes.test-util';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('evidence limits, in bytes of UTF-8', () => {
  it('takes multi-byte text at a field’s byte limit and refuses it one byte over', () => {
    const cases: [field: string, atLimit: string][] = [
      ['customer_name', 'é'.repeat(100)], // 2 bytes each: 200
      ['shipping_carrier', '€'.repeat(33) + 'a'], // 3 bytes each: 100
      ['uncategorized_text', '😀'.repeat(5_000)], // 4 bytes (2 UTF-16 units) each: 20,000
    ];
    for (const [field, atLimit] of cases) {
      expect([field, codeOf(() => validateEvidence({ [field]: atLimit }))]).toEqual([field, undefined]);
      expect([field, codeOf(() => validateEvidence({ [field]: `${atLimit}a` }))]).toEqual([
        field,
        ['VALIDATION_FAILED', `evidence.${field}`],
      ]);
    }
    // The character count alone would have let these through (at most half their bytes).
    expect(codeOf(() => validateEvidence({ customer_name: 'é'.repeat(101) }))).toEqual([
      'VALIDATION_FAILED',
      'evidence.customer_name',
    ]);
  });

  it('holds all saved fields within the total, and a refused save loses nothing saved', async () => {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    const d = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' });
    const save = (evidence: Record<string, string | null>) =>
      w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence, submit: false });
    const full = {
      uncategorized_text: '😀'.repeat(5_000), // 20,000
      product_description: 'é'.repeat(2_500), // 5,000
      refund_policy: '€'.repeat(1_666) + 'ab', // 5,000
      cancellation_policy: 'x'.repeat(2_768),
    };
    expect(Object.values(full).reduce((n, v) => n + bytes(v), 0)).toBe(EVIDENCE_TOTAL_MAX_BYTES);
    await save(full);
    const over = await rejectionOf(save({ customer_name: 'a' }));
    expect([over.code, over.param, over.httpStatus]).toEqual(['VALIDATION_FAILED', 'evidence', 400]);
    expect(over.message).toContain(`${EVIDENCE_TOTAL_MAX_BYTES + 1}`);
    expect((await w.service.get(1000, 'sandbox', d.dispute_id)).evidence).toMatchObject({
      ...full,
      customer_name: null,
    });
    // Replacing a field counts its new value, not both.
    expect((await save({ cancellation_policy: 'y'.repeat(2_767), customer_name: 'a' })).evidence.customer_name).toBe(
      'a',
    );
  });
});

describe('dispute.* events', () => {
  it('carry which evidence is saved, not the texts, however large they are', async () => {
    const w = disputeWorld();
    const chargeId = await w.newCharge();
    const d = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' });
    const text = 'é'.repeat(9_999);
    for (let i = 0; i < 3; i++) {
      await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, {
        evidence: { uncategorized_text: `${text}${i}`, customer_name: 'Ada' },
        submit: i === 2,
      });
    }
    await w.closer.decide(1000, 'sandbox', d.dispute_id, 'won');
    expect(w.subjects()).toEqual([
      'created',
      'funds_withdrawn',
      'updated',
      'updated',
      'updated',
      'closed',
      'funds_reinstated',
    ]);
    for (const e of w.disputes.events) {
      const dispute = (e.data as DisputeEvent).dispute;
      expect([e.subject, 'evidence' in dispute, bytes(JSON.stringify(e.data)) < 2_000]).toEqual([
        e.subject,
        false,
        true,
      ]);
    }
    const updated = w.disputes.events.filter((e) => e.subject === 'payments.dispute.updated');
    expect(updated.map((e) => (e.data as DisputeEvent).dispute.evidence_details)).toEqual([
      { has_evidence: true, fields_provided: ['customer_name', 'uncategorized_text'], submission_count: 0 },
      { has_evidence: true, fields_provided: ['customer_name', 'uncategorized_text'], submission_count: 0 },
      { has_evidence: true, fields_provided: ['customer_name', 'uncategorized_text'], submission_count: 1 },
    ]);
    expect((updated[2]!.data as DisputeEvent).dispute).toMatchObject({
      status: 'under_review',
      dispute_id: d.dispute_id,
    });
  });
});
