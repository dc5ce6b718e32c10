import { caught } from '../errors.test-util';
import { BankDirectory } from '../payout-accounts/banks';
import { nubanCheckDigit } from './account-numbers';
import { normaliseKycSubmission } from './normalise-submission';

/** KYC request bodies the tests of several subdomains submit, and how they normalise. */

/** A 10-digit NUBAN: the serial and its check digit at the bank of `cbnCode`. */
export const nuban = (cbnCode: string, serial: string) => serial + String(nubanCheckDigit(cbnCode, serial));

/** An Access Bank (CBN 044) account number. */
export const ACCESS_NUBAN = nuban('044', '069012345');

/** `number` with its check digit off by one. */
export const badCheckDigit = (number: string) => number.slice(0, 9) + String((Number(number[9]) + 1) % 10);

/** The required owner fields of a Nigerian individual. */
export const OWNER = {
  first_name: 'John',
  last_name: 'Adebayo',
  date_of_birth: '1990-05-17',
  id_type: 'nin',
  id_number: '12345678901',
};

/** An in-house submission that auto-approves (structured body); `bank` and `extra` change it. */
export function inHouseBody(bank: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    id_country: 'NG',
    account_type: 'individual',
    owner: { ...OWNER, id_document_url: 'https://files.example.com/id.png' },
    bank_account: { bank_name: 'Access Bank', account_number: ACCESS_NUBAN, account_name: 'ADEBAYO JOHN', ...bank },
    ...extra,
  };
}

/** A connected-account submission of a US merchant; `extra` changes it. */
export const connectedBody = (extra: Record<string, unknown> = {}) => ({
  country: 'US',
  return_url: 'https://shop.example.com/return',
  refresh_url: 'https://shop.example.com/refresh',
  ...extra,
});

/** The reference time bodies are normalised at (the owner's age is counted to it). */
export const NOW = new Date('2026-11-23T10:00:00Z');

/** `body` as the service normalises it at NOW. */
export const normalise = (body: unknown) => normaliseKycSubmission(body, { banks: BankDirectory.bundled(), now: NOW });

/** The error normalising `body` at NOW answers. */
export const normaliseFailure = (body: unknown) => caught(() => normalise(body));
