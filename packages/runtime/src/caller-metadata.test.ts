import { requireMerchant } from '@ppay/kernel';
import { callerFromMetadata, callerToMetadata } from './caller-metadata';

describe('caller metadata', () => {
  it('round-trips the caller through gRPC metadata', () => {
    const md = callerToMetadata({
      requestId: 'req_1',
      merchantId: 1001,
      mode: 'live',
      auth: 'api_key',
      apiKeyId: 'key_1',
    });
    expect(callerFromMetadata(md, () => 'fallback')).toEqual({
      requestId: 'req_1',
      merchantId: 1001,
      mode: 'live',
      auth: 'api_key',
      apiKeyId: 'key_1',
      userId: undefined,
    });
    const anonymous = callerFromMetadata(callerToMetadata({ requestId: 'r' }), () => 'x');
    expect(() => requireMerchant(anonymous)).toThrow(/Unauthorized/);
  });
});
