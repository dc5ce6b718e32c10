import { BankDirectory, type PayoutInstitution } from '../payout-accounts/banks';
import { decideReview, reviewSubmission } from './auto-approval';
import { NAME_MATCH_THRESHOLD } from './name-match';
import type { InHouseSubmission } from './submission';
import { badCheckDigit, inHouseBody, normalise, nuban } from './submission-bodies.test-util';

const banks = BankDirectory.bundled();
const access = banks.findByName('Access Bank')!;

function submission(bank: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}): InHouseSubmission {
  return normalise(inHouseBody({ account_name: 'ADEBAYO JOHN OLUWASEUN', ...bank }, overrides)) as InHouseSubmission;
}

describe('decideReview', () => {
  it('auto-approves a Nigerian bank account with a valid NUBAN, matching name and no mismatch', () => {
    expect(decideReview({ submission: submission(), institution: access, nameScore: 1 })).toEqual({
      decision: 'auto_approve',
    });
    expect(decideReview({ submission: submission(), institution: access, nameScore: NAME_MATCH_THRESHOLD })).toEqual({
      decision: 'auto_approve',
    });
    expect(reviewSubmission(submission(), access)).toEqual({ decision: 'auto_approve' });
  });

  it('auto-approves microfinance banks with a valid NUBAN', () => {
    const kuda = banks.findByName('Kuda Microfinance Bank')!;
    const s = submission({ bank_name: kuda.name, account_number: nuban('950211', '200123456') });
    expect(reviewSubmission(s, kuda)).toEqual({ decision: 'auto_approve' });
  });

  it('sends a name mismatch to review with the score, rounded down', () => {
    const s = submission({ account_name: 'Ngozi Eze' });
    expect(reviewSubmission(s, access)).toEqual({ decision: 'manual_review', reasons: ['name_mismatch:0.00'] });
    expect(decideReview({ submission: submission(), institution: access, nameScore: 0.849 })).toEqual({
      decision: 'manual_review',
      reasons: ['name_mismatch:0.84'],
    });
    expect(decideReview({ submission: submission(), institution: access, nameScore: NaN })).toMatchObject({
      reasons: ['name_mismatch:0.00'],
    });
  });

  it('never auto-approves a country mismatch', () => {
    const s = submission(
      {},
      { id_country: 'GH', owner: { ...submission().owner, id_type: 'passport', id_number: 'G1234567', address: null } },
    );
    expect(s.country_mismatch).toBe(true);
    expect(reviewSubmission(s, access)).toEqual({ decision: 'manual_review', reasons: ['country_mismatch'] });
  });

  it('reviews banks outside Nigeria by hand', () => {
    const mpesa = banks.findByName('M-PESA')!;
    const s = submission(
      { bank_name: 'M-PESA', account_number: '0712345678' },
      {
        id_country: 'KE',
        owner: { ...submission().owner, id_type: 'national_id', id_number: '12345678', address: null },
      },
    );
    expect(reviewSubmission(s, mpesa)).toEqual({ decision: 'manual_review', reasons: ['not_nigerian_bank'] });
  });

  it('needs the bank in the directory with its CBN code', () => {
    const s = submission();
    expect(decideReview({ submission: s, institution: undefined, nameScore: 1 })).toEqual({
      decision: 'manual_review',
      reasons: ['unknown_bank'],
    });
    const noCode: PayoutInstitution = { ...access, cbn_code: undefined };
    expect(decideReview({ submission: s, institution: noCode, nameScore: 1 })).toMatchObject({
      reasons: ['unknown_bank'],
    });
    const zenith = banks.findByName('Zenith Bank')!;
    expect(decideReview({ submission: s, institution: zenith, nameScore: 1 })).toMatchObject({
      reasons: ['unknown_bank'],
    });
  });

  it('flags an invalid NUBAN (microfinance banks accept it at submission) and wallets without a check digit', () => {
    const moniepoint = banks.findByName('Moniepoint MFB')!;
    const good = nuban('950515', '512345678');
    const bad = badCheckDigit(good);
    const s = submission({ bank_name: moniepoint.name, account_number: bad });
    expect(reviewSubmission(s, moniepoint)).toEqual({ decision: 'manual_review', reasons: ['invalid_nuban'] });
    const opay = banks.findByName('Opay')!;
    const wallet = submission({ bank_name: 'Opay', account_number: '8031234567' });
    expect(reviewSubmission(wallet, opay)).toEqual({ decision: 'manual_review', reasons: ['no_check_digit'] });
  });

  it('keeps every failed condition as evidence', () => {
    const s = submission(
      { account_name: 'Ngozi Eze' },
      { id_country: 'GH', owner: { ...submission().owner, id_type: 'passport', id_number: 'G1234567', address: null } },
    );
    expect(decideReview({ submission: s, institution: undefined, nameScore: 0.5 })).toEqual({
      decision: 'manual_review',
      reasons: ['country_mismatch', 'unknown_bank', 'name_mismatch:0.50'],
    });
  });
});
