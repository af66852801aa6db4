import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import { EventStream, eventsTableDefinition } from 'dynafold';
import { LocalKeyProvider, SubjectKeys, subjectKeysTableDefinition } from 'dynafold/erasure';
import { processBatch } from 'dynafold/lambda';
import { readStreamRecords, toLambdaRecord } from 'dynafold/local';
import { itemSize } from '../../lib/dynamo/item-size';
import { SEAL_OVERHEAD_BYTES, dataKeyOf } from '../../lib/personal/cipher';
import { planSealing, sealFields } from '../../lib/erasure/seal-events';
import { resolveDeclaration } from '../../lib/erasure/declaration';
import { billed } from '../cost/billed';
import { clients, createTable } from '../support/local';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { nsPerCall } from '../support/stats';

const Registered = z.object({ name: z.string(), email: z.string(), country: z.string() });
const data = { name: 'Ada Lovelace', email: 'ada.lovelace@example.com', country: 'UK' };
const sealedFields = { subject: { streamId: 'customerId' }, fields: { name: '[erased]', email: '[erased]' } } as const;

/** The same stream without personal data and with its name and email sealed. */
function streams(client: DynamoDBClient, table: string, keys: SubjectKeys) {
  const base = { client, table, streamId: ['customerId'], events: { Registered } } as const;
  return {
    plain: new EventStream({ ...base, name: 'Plain' }),
    sealed: new EventStream({
      ...base,
      name: 'Customer',
      personalData: { keys, events: { Registered: sealedFields } },
    }),
  };
}

/**
 * What personal data costs: the bytes a sealed field adds to its item, the CPU of sealing and of opening
 * on the decode every reader goes through (against the same event unsealed), and the key reads of a Lambda
 * batch, cold (a new process) and warm, as the cost model bills them.
 */
export const erasure: Scenario = {
  name: 'erasure',
  title: 'Personal data: bytes, CPU and key reads',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const c = clients(context.endpoint);
    const keysClient = new DynamoDBClient({ ...context.endpoint, maxAttempts: 10 });
    try {
      const { name: table, streamArn } = await createTable(c.client, eventsTableDefinition, 'erasure');
      const keyTable = `erasure-keys-${Date.now().toString(36)}`;
      await c.client.send(new CreateTableCommand(subjectKeysTableDefinition(keyTable)));
      const provider = new LocalKeyProvider({ key: randomBytes(32) });
      const writerKeys = new SubjectKeys({ client: c.client, table: keyTable, provider });
      const { plain, sealed } = streams(c.client, table, writerKeys);

      // Bytes: the same event stored both ways.
      await plain.append({ customerId: 'c-0' }, [{ type: 'Registered', data }]);
      await sealed.append({ customerId: 'c-0' }, [{ type: 'Registered', data }]);
      const stored = async (stream: string) =>
        unmarshall(
          (
            await c.client.send(
              new GetItemCommand({ TableName: table, Key: { pk: { S: `${stream}#c-0` }, sk: { S: 'e#0000000001' } }, ConsistentRead: true }),
            )
          ).Item ?? {},
        );
      const plainItem = await stored('Plain');
      const sealedItem = await stored('Customer');
      const bytesPerField = (itemSize(sealedItem) - itemSize(plainItem)) / 2;

      // CPU: sealing an event's two fields, and decoding it with and without them.
      const count = context.quick ? 20_000 : 200_000;
      const rounds = context.quick ? 5 : 11;
      const key = dataKeyOf(randomBytes(32));
      const declaringStream = {
        name: 'Customer',
        streamIdFields: ['customerId'],
        events: { Registered },
        types: new Map([['Registered', { type: 'Registered', version: 1, older: new Map() }]]),
      };
      const personal = resolveDeclaration(declaringStream, { events: { Registered: sealedFields } });
      const target = { streamName: 'Customer', partitionKey: 'Customer#c-0', ids: () => ({ customerId: 'c-0' }) };
      const event = { type: 'Registered', data, index: 0, version: 1 };
      const plan = planSealing(personal, target, event) ?? [];
      const [sealNs = NaN] = nsPerCall([() => sealFields(target, event, plan, new Map([['c-0', key]]))], count / 4, rounds);
      const [plainNs = NaN, openNs = NaN] = nsPerCall([() => plain.decodeCommit(plainItem), () => sealed.decodeCommit(sealedItem)], count, rounds);

      // Key reads per batch: 100 records of 10 subjects, then of 100, read by a cold process, then warm.
      for (let n = 0; n < 100; n++) await sealed.append({ customerId: `c-${n % 10}` }, [{ type: 'Registered', data }]);
      for (let n = 0; n < 100; n++) await sealed.append({ customerId: `w-${n}` }, [{ type: 'Registered', data }]);
      const records = (await readStreamRecords(c.streams, streamArn))
        .filter((record) => record.eventName === 'INSERT')
        .map((record) => toLambdaRecord(record));
      const ofSubjects = (prefix: string) => records.filter((record) => JSON.stringify(record.dynamodb?.Keys).includes(`Customer#${prefix}`));
      const bill = await billed(keysClient);
      const reader = new SubjectKeys({ client: keysClient, table: keyTable, provider });
      const readerStream = streams(c.client, table, reader).sealed;
      const batch = async (batchRecords: ReadonlyArray<unknown>) => {
        const before = reader.stats;
        bill.reset();
        const result = await processBatch(batchRecords, { projections: {}, streams: { Customer: readerStream } });
        if (result.unrouted.length !== batchRecords.length) throw new Error(`bench: ${result.decodeFailures.length} records failed to decode`);
        const after = reader.stats;
        return {
          requests: after.requests - before.requests,
          keys: after.keysRead - before.keysRead,
          unwraps: after.unwrapped - before.unwrapped,
          readUnits: bill.readUnits,
        };
      };
      const cold10 = await batch(ofSubjects('c-').slice(0, 100));
      const warm10 = await batch(ofSubjects('c-').slice(0, 100));
      const cold100 = await batch(ofSubjects('w-'));

      const rows: Row[] = [
        {
          scenario: 'erasure',
          measure: 'bytes per sealed field (item)',
          dynafold: bytesPerField,
          baseline: SEAL_OVERHEAD_BYTES,
          against: 'IV + tag + format',
        },
        { scenario: 'erasure', measure: 'seal 2 fields, ns per event', dynafold: sealNs },
        {
          scenario: 'erasure',
          measure: 'decode with 2 sealed fields, ns',
          dynafold: openNs,
          baseline: plainNs,
          against: 'no personal data',
          ratio: openNs / plainNs,
        },
        {
          scenario: 'erasure',
          measure: 'key requests, 100 records of 10 subjects (cold)',
          dynafold: cold10.requests,
          target: '1 BatchGetItem',
          pass: cold10.requests === 1,
        },
        {
          scenario: 'erasure',
          measure: 'keys read / unwrapped (cold, 10 subjects)',
          dynafold: `${cold10.keys} / ${cold10.unwraps}`,
          target: '10 / 10',
          pass: cold10.keys === 10 && cold10.unwraps === 10,
        },
        { scenario: 'erasure', measure: 'key read units, 100 records of 10 subjects (cold)', dynafold: cold10.readUnits },
        {
          scenario: 'erasure',
          measure: 'key requests, the same batch again (warm)',
          dynafold: warm10.requests,
          target: '0',
          pass: warm10.requests === 0 && warm10.readUnits === 0,
        },
        {
          scenario: 'erasure',
          measure: 'key requests / read units, 100 records of 100 subjects (cold)',
          dynafold: `${cold100.requests} / ${cold100.readUnits}`,
          target: '1 request',
          pass: cold100.requests === 1,
        },
      ];
      const notes = [
        `a sealed field is stored as bytes beside the data (subject → field → format, IV, ciphertext, tag): ${SEAL_OVERHEAD_BYTES} bytes of crypto plus its name again under the subject; the item of one Registered event grew from ${itemSize(plainItem)} to ${itemSize(sealedItem)} bytes`,
        'key reads are eventually consistent BatchGetItems of 100 keys, one item (< 1 KB) per subject: 0.5 read units each; a warm process reads none within the cache lifetime (5 min)',
      ];
      return { rows, notes, details: { bytesPerField, sealNs, plainNs, openNs, cold10, warm10, cold100, count, rounds } };
    } finally {
      keysClient.destroy();
      c.destroy();
    }
  },
};
