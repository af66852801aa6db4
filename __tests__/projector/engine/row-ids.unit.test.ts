import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { z } from 'zod';
import { ReadModel } from 'dynafold';
import { rowIdOf } from '../../../lib/projector/engine/row-store';
import { propertySettings } from '../../support/delivery';

const client = new DynamoDBClient({ region: 'local', endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
afterAll(() => client.destroy());

const model = new ReadModel({
  client,
  table: 'placeholder',
  name: 'Tally',
  schema: z.object({ zone: z.string(), n: z.number(), flag: z.boolean() }),
  key: { pk: { field: 'pk', composite: ['zone'] }, sk: { field: 'sk', composite: ['n', 'flag'] } },
});

// Ids are kept by the key fields' values: whatever keys come in (values that look alike across types,
// separators, fields in any order, fields the key is not made of), each id is the stored key.
test('a row id is its stored key, however often and in whatever form its key comes', () => {
  const value = fc.oneof(fc.constantFrom('a', 'b', '1', 'a#b', '#', ''), fc.constantFrom(1, 0, -1, 1.5), fc.boolean(), fc.constant(undefined));
  const key = fc.record({ zone: value, n: value, flag: value, other: value }, { requiredKeys: [] });
  fc.assert(
    fc.property(fc.array(key, { maxLength: 30 }), (keys) => {
      for (const one of keys) {
        const reversed = Object.fromEntries(Object.entries(one).reverse());
        let expected: string | Error;
        try {
          expected = JSON.stringify(model.keyOf(one as never));
        } catch (error) {
          expected = error as Error;
        }
        for (const form of [one, reversed]) {
          if (expected instanceof Error) expect(() => rowIdOf({ store: { readModel: model } } as never, form)).toThrow(expected.message);
          else expect(rowIdOf({ store: { readModel: model } } as never, form)).toBe(expected);
        }
      }
    }),
    propertySettings(200),
  );
});
