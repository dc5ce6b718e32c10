import { PlatformError } from '@ppay/kernel';
import { normaliseConnected } from './connected-submission';
import { isAbsent, isObject, readCountry, type Body } from './fields';
import { normaliseInHouse } from './in-house-submission';
import { kycRouteFor, type InHouseCountry } from './routing';
import type { KycSubmissionInput, NormaliseOptions } from './submission';

/**
 * POST /marketplace/merchants/{id}/kyc body → a normalised submission (spec 4.9, errors 7.2).
 *
 * The spec's 400s come first, in its order and wording: `country or id_country is required`; then on the
 * in-house route `account_type is required`, `owner object is required for African markets`,
 * `business object is required for registered businesses`; on the connected route `return_url and
 * refresh_url are required for connected-account onboarding`. Field errors follow, each naming its field.
 *
 * Choices where the spec is silent:
 *  - Country: `id_country`, else `country`; an ISO alpha-2 code in any case or an English country name.
 *    The country's route (routing.ts) decides which body it is: in-house-submission.ts or
 *    connected-submission.ts.
 */

/** Validates and normalises a KYC body; throws VALIDATION_FAILED (400) naming the field at fault. */
export function normaliseKycSubmission(body: unknown, options: NormaliseOptions): KycSubmissionInput {
  const b: Body = isObject(body) ? body : {};
  const countryField = !isAbsent(b.id_country) ? 'id_country' : 'country';
  if (isAbsent(b[countryField])) {
    throw new PlatformError('VALIDATION_FAILED', 'country or id_country is required', { param: 'id_country' });
  }
  const country = readCountry(b[countryField], countryField);
  return kycRouteFor(country) === 'in_house'
    ? normaliseInHouse(b, country as InHouseCountry, options)
    : normaliseConnected(b, country);
}
