import fc from 'fast-check';
import { Layout, eventSortKey, versionOfSortKey } from '../../lib/store/layout';
import { propertySettings } from '../support/delivery';

// What an event's sort key is, said once more the plain way: the prefix, then exactly the version's digits.
const oracle = new RegExp(`^${Layout.eventPrefix}\\d{${Layout.versionDigits}}$`);
const expected = (key: unknown) =>
  typeof key === 'string' && oracle.test(key) && Number(key.slice(Layout.eventPrefix.length)) >= 1
    ? Number(key.slice(Layout.eventPrefix.length))
    : undefined;

test('a sort key gives back the version it was made of', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 10 ** Layout.versionDigits - 1 }), (version) => versionOfSortKey(eventSortKey(version)) === version),
    propertySettings(500),
  );
});

test('any other key, near misses included, is no version', () => {
  const near = fc
    .tuple(fc.constantFrom('e#', 'e$', 'E#', '', 'e#0', 'e#-'), fc.stringMatching(/^[0-9a/ :-]{0,12}$/))
    .map(([prefix, rest]) => prefix + rest);
  fc.assert(
    fc.property(fc.oneof(near, fc.string(), fc.constantFrom('e#0000000000', 'e#00000000001', 'e#000000001', 'e#$snapshot', 42, undefined)), (key) => {
      expect(versionOfSortKey(key)).toBe(expected(key));
    }),
    propertySettings(2000),
  );
});
