/**
 * eventFilterPattern against Lambda's documented filter rule syntax: a pattern's keys name the event's
 * properties, its arrays list the values that match (exact match, any of them). A DynamoDB Streams
 * mapping filters on the change record; a Kinesis mapping only on `data`, the record's data decoded as
 * JSON (Lambda's "Using event filtering with a Kinesis event source").
 */
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { eventFilterPattern } from 'dynafold/lambda';
import { toKinesisRecord, toLambdaRecord } from 'dynafold/local';

/** The subset of the filter rule syntax the patterns use: nested objects, arrays of exact values. */
function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((wanted) => wanted === value);
  if (typeof pattern !== 'object' || pattern === null) throw new Error(`not a filter rule: ${JSON.stringify(pattern)}`);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(pattern).every(([key, rule]) => matches(rule, (value as Record<string, unknown>)[key]));
}

/** What Lambda filters a Kinesis record on: its `data`, decoded. */
function kinesisFilterInput(record: ReturnType<typeof toKinesisRecord>): unknown {
  return { data: JSON.parse(Buffer.from(record.kinesis.data, 'base64').toString('utf8')) as unknown };
}

const change = (eventName: 'INSERT' | 'MODIFY', marker: string | undefined): _Record => ({
  eventID: '1',
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: {
    Keys: { pk: { S: `${marker ?? 'Other'}#o-1` }, sk: { S: 'e#1' } },
    NewImage: { pk: { S: `${marker ?? 'Other'}#o-1` }, sk: { S: 'e#1' }, ...(marker === undefined ? {} : { _df: { S: marker } }) },
    SequenceNumber: '100',
    SizeBytes: 10,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
});

const records = {
  orderInsert: change('INSERT', 'Order'),
  customerInsert: change('INSERT', 'Customer'),
  orderModify: change('MODIFY', 'Order'),
  otherItem: change('INSERT', undefined),
};

test.each([
  ['dynamodb', (record: _Record) => toLambdaRecord(record)],
  ['kinesis', (record: _Record) => kinesisFilterInput(toKinesisRecord(record))],
] as const)('on a %s mapping the pattern keeps exactly the INSERTs of the named streams', (source, input) => {
  const pattern = eventFilterPattern(['Order'], { source });
  const kept = Object.entries(records)
    .filter(([, record]) => matches(pattern, input(record)))
    .map(([name]) => name);
  expect(kept).toEqual(['orderInsert']);
});

test('a DynamoDB Streams pattern used on a Kinesis mapping drops every record (why Kinesis needs its own)', () => {
  const kept = Object.values(records).filter((record) => matches(eventFilterPattern(['Order']), kinesisFilterInput(toKinesisRecord(record))));
  expect(kept).toEqual([]);
  expect(eventFilterPattern(['Order'], { source: 'kinesis' })).toEqual({ data: eventFilterPattern(['Order']) });
});
