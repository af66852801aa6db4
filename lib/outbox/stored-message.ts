import { ConfigurationError } from '../errors';
import { decompress } from '../dynamo';
import { OutboxLayout } from '../projector';
import { openBlob, outboxContext } from '../personal';
import type { SubjectKeys } from '../erasure';
import { storedTraceContext, type TraceContext } from '../telemetry';

/** An outbox message as the relay hands it to `publish`. */
export interface OutboxMessage {
  /**
   * `<stream name>#<stream id>#<version>` of the event: stable across redeliveries and unique within a
   * projection (two projections with outboxes each publish their own message for an event). Deduplicate on
   * it together with `projection`.
   */
  readonly id: string;
  readonly projection: string;
  /** The key fields of the row whose write produced the message. */
  readonly key: Readonly<Record<string, unknown>>;
  readonly message: unknown;
  readonly createdAt: string;
  /**
   * The trace context the event's append stored, when it did: to propagate with the message (the relay's
   * publish span links to it too).
   */
  readonly trace?: TraceContext | undefined;
}

/** The trace context a stored outbox item carries, if any. */
export function storedMessageTrace(item: Readonly<Record<string, unknown>>): TraceContext | undefined {
  return storedTraceContext(item[OutboxLayout.traceContext]);
}

/**
 * The message of a stored outbox item, decompressed where it was stored compressed and opened where it was
 * sealed (with `keys`, which must hold the keys of its subjects: see {@link sealedSubjects}); `erased` when
 * a subject it was sealed for is forgotten.
 */
export function storedMessage(item: Readonly<Record<string, unknown>>, keys?: SubjectKeys): { readonly message: unknown } | 'erased' {
  const encoding = item[OutboxLayout.encoding];
  let message = item['message'];
  const shares = item[OutboxLayout.personal];
  if (shares !== undefined) {
    const where = `Outbox message ${String(item['id'])} of projection ${String(item[OutboxLayout.marker])}`;
    if (keys === undefined)
      throw new ConfigurationError(`${where} is sealed for the subjects whose personal data it holds: give the relay \`keys\`.`);
    const context = outboxContext(String(item[OutboxLayout.partitionKey]), String(item[OutboxLayout.sortKey]));
    const opened = openBlob(keys, message, shares, context, where);
    if (opened.kind === 'forgotten') return 'erased';
    message = typeof encoding === 'string' ? opened.plaintext : (JSON.parse(opened.plaintext.toString('utf8')) as unknown);
  }
  if (typeof encoding !== 'string') return { message };
  const bytes = typeof message === 'string' ? Buffer.from(message, 'base64') : (message as Uint8Array);
  return { message: JSON.parse(decompress(bytes, encoding)) as unknown };
}

/** The subjects a page of outbox items is sealed for, whose keys opening them needs. */
export function sealedSubjects(items: ReadonlyArray<Readonly<Record<string, unknown>>>): Set<string> {
  const subjects = new Set<string>();
  for (const item of items) {
    const shares = item[OutboxLayout.personal];
    if (typeof shares === 'object' && shares !== null) for (const subject of Object.keys(shares)) subjects.add(subject);
  }
  return subjects;
}
