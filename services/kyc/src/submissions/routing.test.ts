import { isCountryCode } from '@ppay/kernel';
import { caught } from '../errors.test-util';
import {
  connectedSettlementCurrency,
  EU_MEMBER_STATES,
  gatewayRegionFor,
  IN_HOUSE_COUNTRIES,
  kycRouteFor,
  settlementCurrencyForBankCountry,
} from './routing';

describe('KYC routes', () => {
  it('reviews NG, GH, ZA and KE in house and sends every other country to a connected account', () => {
    expect([...IN_HOUSE_COUNTRIES]).toEqual(['NG', 'GH', 'ZA', 'KE']);
    for (const c of IN_HOUSE_COUNTRIES) expect(kycRouteFor(c)).toBe('in_house');
    for (const c of ['US', 'GB', 'DE', 'TZ', 'UG', 'EG', 'BR']) expect(kycRouteFor(c)).toBe('connected_account');
  });

  it('settles in-house payouts in the bank country currency', () => {
    expect(settlementCurrencyForBankCountry('NG')).toBe('NGN');
    expect(settlementCurrencyForBankCountry('GH')).toBe('GHS');
    expect(settlementCurrencyForBankCountry('KE')).toBe('KES');
    expect(settlementCurrencyForBankCountry('ZA')).toBe('ZAR');
    expect(settlementCurrencyForBankCountry('US')).toBeUndefined();
  });
});

describe('connected-account settlement currency (spec 4.9)', () => {
  it('derives USD, GBP, CAD, AUD and EUR from the country', () => {
    expect(connectedSettlementCurrency('US')).toBe('USD');
    expect(connectedSettlementCurrency('GB')).toBe('GBP');
    expect(connectedSettlementCurrency('CA')).toBe('CAD');
    expect(connectedSettlementCurrency('AU')).toBe('AUD');
    for (const c of EU_MEMBER_STATES) expect(connectedSettlementCurrency(c)).toBe('EUR');
  });

  it('lists the 27 EU member states, each a real country once', () => {
    expect(EU_MEMBER_STATES).toHaveLength(27);
    expect(new Set(EU_MEMBER_STATES).size).toBe(27);
    for (const c of EU_MEMBER_STATES) expect(isCountryCode(c)).toBe(true);
    expect(EU_MEMBER_STATES).not.toContain('GB');
    expect(EU_MEMBER_STATES).not.toContain('CH');
  });

  it('gives other countries USD unless a supported preferred_currency is asked for', () => {
    expect(connectedSettlementCurrency('TZ')).toBe('USD');
    expect(connectedSettlementCurrency('CH')).toBe('USD');
    expect(connectedSettlementCurrency('TZ', 'gbp')).toBe('GBP');
    expect(connectedSettlementCurrency('NO', 'EUR')).toBe('EUR');
    expect(connectedSettlementCurrency('BR', '')).toBe('USD');
    expect(connectedSettlementCurrency('BR', null)).toBe('USD');
  });

  it('lets an explicit preference override the country default (the country only supplies the default)', () => {
    expect(connectedSettlementCurrency('US', 'EUR')).toBe('EUR');
    expect(connectedSettlementCurrency('FR', 'usd')).toBe('USD');
    expect(connectedSettlementCurrency('FR', undefined)).toBe('EUR');
  });

  it('rejects a preferred_currency outside USD/EUR/GBP/CAD/AUD, even for a mapped country', () => {
    for (const bad of ['NGN', 'JPY', 'XYZ', 42]) {
      expect(caught(() => connectedSettlementCurrency('TZ', bad))).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'preferred_currency must be one of AUD, CAD, EUR, GBP, USD',
        param: 'preferred_currency',
      });
    }
    expect(caught(() => connectedSettlementCurrency('US', 'NGN'))).toMatchObject({ param: 'preferred_currency' });
    expect(connectedSettlementCurrency('TZ', ' usd ')).toBe('USD');
  });
});

describe('gateway region', () => {
  it('is EU for the EEA, GB and CH and US for everyone else', () => {
    for (const c of [...EU_MEMBER_STATES, 'IS', 'LI', 'NO', 'GB', 'CH']) expect(gatewayRegionFor(c)).toBe('EU');
    for (const c of ['US', 'CA', 'AU', 'BR', 'TZ', 'JP', 'TR', 'NG']) expect(gatewayRegionFor(c)).toBe('US');
  });
});
