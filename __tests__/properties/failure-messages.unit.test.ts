import fc from 'fast-check';
import { ValidationError } from 'dynafold';
import { streamBatchInfo } from 'dynafold/feed';
import { propertySettings } from '../support/delivery';

/*
 * OnFailure messages as a destination queue may hold them, malformed in every field: `streamBatchInfo`
 * (which `replayFailure` and `dynafold replay` read messages with, before any request) returns the batch's
 * coordinates for a well-formed message and throws a `ValidationError` for any other, never another error
 * (the SDK's ValidationException, a SyntaxError from BigInt) nor a range that cannot be.
 */
const digits = (length: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: length, maxLength: length }).map((d) => d.join(''));
const sequenceNumbers = fc.oneof(
  { weight: 4, arbitrary: digits(21) },
  { weight: 1, arbitrary: digits(40) },
  { weight: 1, arbitrary: fc.constantFrom('first', 'last', '', '12', '0x1f', ' 000000000000000000001', '1e21', '-00000000000000000001') },
  { weight: 1, arbitrary: digits(41) },
);
const fieldValue = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: fc.constantFrom(undefined, null, 7, {}, ['x']) });
const batchSizes = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constantFrom(undefined, 0, -1, 1.5, '3', Number.NaN));
const infos = fc.record({
  streamArn: fieldValue(fc.constantFrom('arn:aws:dynamodb:us-east-1:1:table/t/stream/2024', '')),
  shardId: fieldValue(fc.constant('shardId-00000000000000000000-00000000')),
  startSequenceNumber: fieldValue(sequenceNumbers),
  endSequenceNumber: fieldValue(sequenceNumbers),
  batchSize: batchSizes,
});
/** The message as it reaches a handler: the record itself, an SQS message's body or an SNS notification, as objects or JSON. */
const wrapped = fc.tuple(infos, fc.constantFrom('record', 'sqs', 'sns', 'json')).map(([info, shape]) => {
  const record = { version: '1.0', DDBStreamBatchInfo: info };
  switch (shape) {
    case 'record':
      return { info, message: record as unknown };
    case 'sqs':
      return { info, message: { messageId: 'm', body: JSON.stringify(record) } };
    case 'sns':
      return { info, message: { Sns: { Message: JSON.stringify(record) } } };
    default:
      return { info, message: JSON.stringify(record) };
  }
});

/** The oracle: what a well-formed message is, worked out here. */
function wellFormed(info: Record<string, unknown>): boolean {
  const text = (value: unknown) => typeof value === 'string' && value !== '';
  const sequence = (value: unknown) => typeof value === 'string' && /^[0-9]{21,40}$/.test(value);
  if (!text(info['streamArn']) || !text(info['shardId']) || !sequence(info['startSequenceNumber']) || !sequence(info['endSequenceNumber']))
    return false;
  if (BigInt(info['startSequenceNumber'] as string) > BigInt(info['endSequenceNumber'] as string)) return false;
  const size = info['batchSize'];
  return size === undefined || (typeof size === 'number' && Number.isInteger(size) && size >= 1);
}

test('a malformed OnFailure message is a ValidationError, a well-formed one its coordinates', () => {
  fc.assert(
    fc.property(wrapped, ({ info, message }) => {
      // JSON drops undefined fields and turns NaN into null: judge the message as it arrives.
      const arrived = JSON.parse(JSON.stringify(info)) as Record<string, unknown>;
      if (wellFormed(arrived)) {
        expect(streamBatchInfo(message)).toMatchObject(arrived);
      } else {
        expect(() => streamBatchInfo(message)).toThrow(ValidationError);
      }
    }),
    propertySettings(1000),
  );
});
