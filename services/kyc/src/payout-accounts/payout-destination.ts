import { createHash, randomBytes } from 'node:crypto';
import type { EncryptedSecret } from '@ppay/kernel';
import type { PayoutAccountRecord } from '../cases/kyc-case';

/**
 * Where a payout account pays, reduced to a fingerprint that changes whenever the destination does
 * (another bank, number, holder name, or connected account) and is the same for the same destination
 * within one case: a payout request keeps the fingerprint it was made with, and is approved and settled
 * only while the account still has it (Hardening 2 item 5). It is salted per case (a secret salt kept in
 * the case), so it cannot be reversed into an account number by trying all ten-digit numbers.
 */

/** A fresh per-case salt. */
export const newFingerprintSalt = () => randomBytes(16).toString('base64url');

const sha256 = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('hex');

/** The account number's salted digest, from its clear digits (a number the request names). */
export const numberDigest = (salt: string, accountNumber: string) => `n:${sha256(salt, accountNumber)}`;

/**
 * The digest of a number known only sealed (the KYC submission's, adopted by an empty setup): its
 * ciphertext is as unique as the number and stays the same while that sealed value is kept.
 */
export const sealedNumberDigest = (salt: string, sealed: EncryptedSecret) =>
  `s:${sha256(salt, sealed.iv, sealed.data)}`;

export type DestinationFacts = Pick<
  PayoutAccountRecord,
  'kind' | 'currency' | 'institution_id' | 'account_name' | 'gateway_account_id'
> & { account_number_digest: string | null };

export function destinationFingerprint(salt: string, d: DestinationFacts): string {
  return `pdf_${sha256(
    salt,
    d.kind,
    d.currency,
    d.institution_id ?? '',
    d.account_number_digest ?? '',
    (d.account_name ?? '').trim().toUpperCase(),
    d.gateway_account_id ?? '',
  ).slice(0, 40)}`;
}
