import { PlatformError } from '@ppay/kernel';
import { isAbsent, readUrl, type Body } from './fields';
import { connectedSettlementCurrency, gatewayRegionFor, type ConnectedCurrency } from './routing';
import { readAccountType, type ConnectedSubmission } from './submission';

/**
 * The body of a connected-account submission (every country but NG, GH, ZA and KE; spec 4.9):
 * return_url and refresh_url are required first (spec 7.2). Choices where the spec is silent:
 * business_type (alias account_type) defaults to individual; return_url and refresh_url must be https
 * (http allowed for localhost only, for development).
 */
export function normaliseConnected(body: Body, country: string): ConnectedSubmission {
  if (isAbsent(body.return_url) || isAbsent(body.refresh_url)) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      'return_url and refresh_url are required for connected-account onboarding',
      { param: isAbsent(body.return_url) ? 'return_url' : 'refresh_url' },
    );
  }
  const typeField = !isAbsent(body.business_type) ? 'business_type' : 'account_type';
  const rawType = isAbsent(body[typeField]) ? 'individual' : body[typeField];
  const businessType = readAccountType(rawType, typeField);
  const settlement = connectedSettlementCurrency(country, body.preferred_currency);
  const preferred = isAbsent(body.preferred_currency)
    ? null
    : ((body.preferred_currency as string).trim().toUpperCase() as ConnectedCurrency);
  return {
    route: 'connected_account',
    provider: 'gateway',
    country,
    business_type: businessType,
    preferred_currency: preferred,
    settlement_currency: settlement,
    gateway_region: gatewayRegionFor(country),
    return_url: readUrl(body.return_url, 'return_url', { required: true, allowLocalHttp: true })!,
    refresh_url: readUrl(body.refresh_url, 'refresh_url', { required: true, allowLocalHttp: true })!,
  };
}
