import { describeValidationError } from './validation';

describe('validation error messages', () => {
  it('names the missing or unknown field', () => {
    expect(
      describeValidationError(
        [{ keyword: 'required', instancePath: '', params: { missingProperty: 'amount' } }],
        'body',
      ),
    ).toEqual({
      message: 'amount is required',
      param: 'amount',
    });
    expect(
      describeValidationError(
        [{ keyword: 'required', instancePath: '/customer', params: { missingProperty: 'email' } }],
        'body',
      ),
    ).toEqual({ message: 'customer.email is required', param: 'customer.email' });
    expect(
      describeValidationError(
        [{ keyword: 'additionalProperties', instancePath: '', params: { additionalProperty: 'x' } }],
        'body',
      ),
    ).toEqual({
      message: 'Unknown field x',
      param: 'x',
    });
  });

  it('lists allowed values and says where a query/path problem is', () => {
    expect(
      describeValidationError(
        [{ keyword: 'enum', instancePath: '/mode', params: { allowedValues: ['sandbox', 'live'] } }],
        'body',
      ),
    ).toEqual({
      message: 'mode must be one of: sandbox, live',
      param: 'mode',
    });
    expect(
      describeValidationError(
        [{ keyword: 'maximum', instancePath: '/limit', message: 'must be <= 100' }],
        'querystring',
      ),
    ).toEqual({
      message: 'querystring parameter limit must be <= 100',
      param: 'limit',
    });
  });
});
