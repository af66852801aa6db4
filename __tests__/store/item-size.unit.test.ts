import fc from 'fast-check';
import { itemFits, itemSize } from '../../lib/dynamo';
import { propertySettings } from '../support/delivery';

// Strings of one- to four-byte characters, lone surrogates among them: the bound must hold for all.
const text = fc.string({
  unit: fc.oneof(fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\udfff'), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })),
  maxLength: 40,
});
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.uint8Array({ maxLength: 20 }),
    fc.array(tie('any'), { maxLength: 4 }),
    fc.dictionary(text, tie('any'), { maxKeys: 4 }),
  ),
}));

test('an item fits a limit exactly when its size is within it', () => {
  fc.assert(
    fc.property(fc.dictionary(text, value.any, { maxKeys: 6 }), fc.integer({ min: -3, max: 3 }), (item, offset) => {
      const size = itemSize(item);
      expect(itemFits(item, size + offset)).toBe(offset >= 0);
    }),
    propertySettings(500),
  );
});
