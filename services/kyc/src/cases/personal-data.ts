import type { EncryptedSecret } from '@ppay/kernel';
import type { Business, Owner } from '../submissions/submission';

/**
 * KYC personal data at rest (Hardening 2 item 9): every personal field of the owner (date of birth,
 * phone, e-mail, address, document and selfie URLs) and of the business (registration and tax ids,
 * address) is sealed, like the ID and account numbers were already. Names stay in clear: they are the
 * submission's legal name, which the partner API shows and the name match reads. One sealed value per
 * part (a JSON object), so a case holds a handful of ciphertexts however many fields are set.
 */

/** What seals and what opens (the kernel SecretBox; ports.ts names the same shapes for the use cases). */
export interface SealsText {
  seal(plaintext: string): EncryptedSecret;
}
export interface OpensText {
  open(sealed: EncryptedSecret): string;
}

export type OwnerPersonal = Pick<
  Owner,
  'date_of_birth' | 'phone_number' | 'email' | 'id_document_url' | 'selfie_url' | 'address'
>;
export type BusinessIdentifiers = Pick<Business, 'registration_number' | 'tax_id' | 'address'>;

/** The owner as stored: names and ID type in clear, the ID number and everything personal sealed. */
export interface StoredOwner extends Partial<OwnerPersonal> {
  first_name: string;
  last_name: string;
  id_type: string;
  id_number_sealed: EncryptedSecret;
  id_number_masked: string;
  /**
   * OwnerPersonal as JSON. Absent on owners stored before Hardening 2, whose personal fields are still
   * in clear beside it (the `Partial<OwnerPersonal>`) until the re-encryption job seals them.
   */
  personal_sealed?: EncryptedSecret;
}

/** The business as stored: its registered name in clear, its identifiers and address sealed. */
export interface StoredBusiness extends Partial<BusinessIdentifiers> {
  registered_name: string;
  /** BusinessIdentifiers as JSON; absent on businesses stored before Hardening 2 (clear beside it). */
  identifiers_sealed?: EncryptedSecret;
}

const OWNER_PERSONAL = ['date_of_birth', 'phone_number', 'email', 'id_document_url', 'selfie_url', 'address'] as const;
const BUSINESS_IDENTIFIERS = ['registration_number', 'tax_id', 'address'] as const;

function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = value[k] ?? (null as T[K]);
  return out;
}

function without<T extends object>(value: T, keys: readonly string[]): T {
  const out = { ...value } as Record<string, unknown>;
  for (const k of keys) delete out[k];
  return out as T;
}

export function sealOwner(
  owner: Owner,
  sealer: SealsText,
  sealedIdNumber: Pick<StoredOwner, 'id_number_sealed' | 'id_number_masked'>,
): StoredOwner {
  return {
    first_name: owner.first_name,
    last_name: owner.last_name,
    id_type: owner.id_type,
    ...sealedIdNumber,
    personal_sealed: sealer.seal(JSON.stringify(pick(owner, OWNER_PERSONAL))),
  };
}

export function sealBusiness(business: Business, sealer: SealsText): StoredBusiness {
  return {
    registered_name: business.registered_name,
    identifiers_sealed: sealer.seal(JSON.stringify(pick(business, BUSINESS_IDENTIFIERS))),
  };
}

/** An owner stored before Hardening 2, with its personal fields sealed now (the re-encryption job). */
export function sealLegacyOwner(owner: StoredOwner, sealer: SealsText): StoredOwner | null {
  if (owner.personal_sealed) return null;
  const personal = pick(owner as Required<StoredOwner>, OWNER_PERSONAL);
  return { ...without(owner, OWNER_PERSONAL), personal_sealed: sealer.seal(JSON.stringify(personal)) };
}

export function sealLegacyBusiness(business: StoredBusiness, sealer: SealsText): StoredBusiness | null {
  if (business.identifiers_sealed) return null;
  const identifiers = pick(business as Required<StoredBusiness>, BUSINESS_IDENTIFIERS);
  return { ...without(business, BUSINESS_IDENTIFIERS), identifiers_sealed: sealer.seal(JSON.stringify(identifiers)) };
}

/** The owner's personal fields; null when they cannot be opened (a key no longer in the ring). */
export function openOwner(owner: StoredOwner, opener: OpensText): OwnerPersonal | null {
  if (!owner.personal_sealed) return pick(owner as Required<StoredOwner>, OWNER_PERSONAL);
  return openJson<OwnerPersonal>(owner.personal_sealed, opener);
}

export function openBusiness(business: StoredBusiness, opener: OpensText): BusinessIdentifiers | null {
  if (!business.identifiers_sealed) return pick(business as Required<StoredBusiness>, BUSINESS_IDENTIFIERS);
  return openJson<BusinessIdentifiers>(business.identifiers_sealed, opener);
}

function openJson<T>(sealed: EncryptedSecret, opener: OpensText): T | null {
  try {
    return JSON.parse(opener.open(sealed)) as T;
  } catch {
    return null;
  }
}
