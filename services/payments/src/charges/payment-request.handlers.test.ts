import { PlatformError } from '@ppay/kernel';
import { metadataOf } from './payment-request.handlers';

describe('metadataOf (metadata from the wire)', () => {
  it('keeps scalar values under their keys', () => {
    expect(
      metadataOf({
        order: { kind: 'string_value', string_value: 'A-1' },
        count: { kind: 'number_value', number_value: 2 },
        gift: { kind: 'bool_value', bool_value: true },
      }),
    ).toEqual({ order: 'A-1', count: 2, gift: true });
  });

  it('refuses a key that would be a path, an operator or the prototype, whoever sent it', () => {
    for (const key of ['a.b', '$where', '__proto__', 'k'.repeat(41)]) {
      const input = Object.defineProperty({}, key, {
        value: { kind: 'string_value', string_value: 'x' },
        enumerable: true,
      });
      expect(() => metadataOf(input)).toThrow(
        expect.objectContaining({ code: 'METADATA_INVALID', param: 'metadata' }) as PlatformError,
      );
    }
  });
});
