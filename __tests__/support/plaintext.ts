import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';

/**
 * Every string a stored value holds where someone reading the table could find it: strings, numbers as
 * text, and binary values as text, gunzipped and brotli-decompressed (compressed data is readable too).
 */
function textsOf(value: unknown, into: string[]): void {
  if (value instanceof Uint8Array) {
    const bytes = Buffer.from(value);
    into.push(bytes.toString('utf8'), bytes.toString('latin1'));
    for (const inflate of [gunzipSync, brotliDecompressSync]) {
      try {
        into.push(inflate(bytes).toString('utf8'));
      } catch {
        // Not compressed that way.
      }
    }
    return;
  }
  if (typeof value === 'string') {
    into.push(value);
    // Lambda's JSON shape carries binary as base64.
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(value) && value.length % 4 === 0 && value.length >= 8) textsOf(Buffer.from(value, 'base64'), into);
    return;
  }
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') into.push(String(value));
  if (Array.isArray(value)) for (const member of value) textsOf(member, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      into.push(key);
      textsOf(member, into);
    }
  }
}

/** Where each of `secrets` appears in `values` (labelled), as `<label>: <secret>`. */
export function plaintextIn(values: ReadonlyArray<readonly [label: string, value: unknown]>, secrets: ReadonlyArray<string>): string[] {
  const found: string[] = [];
  for (const [label, value] of values) {
    const texts: string[] = [];
    textsOf(value, texts);
    for (const secret of secrets) if (texts.some((text) => text.includes(secret))) found.push(`${label}: ${secret}`);
  }
  return found;
}

/** Every item of a table (a consistent Scan), labelled by table and key. */
export async function scanTable(client: DynamoDBClient, table: string): Promise<Array<readonly [string, unknown]>> {
  const items: Array<readonly [string, unknown]> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start as never }));
    for (const item of page.Items ?? []) items.push([`${table} ${item['pk']?.S ?? ''} ${item['sk']?.S ?? ''}`, item]);
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** Stream records as values to search, labelled by sequence number. */
export function recordValues(records: ReadonlyArray<_Record>): Array<readonly [string, unknown]> {
  return records.map((record) => [`record ${record.dynamodb?.SequenceNumber ?? '?'}`, record.dynamodb] as const);
}
