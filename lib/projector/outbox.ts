import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors';
import type { ReadModel, StreamEvent } from '../store';
import { streamedTableDefinition } from '../store/tables';
import { RowAttributes } from '../store/read-model-keys';
import type { ExtraPut } from './row-store';

/** Options of a projection's outbox: messages written in the same transaction as the row. */
export interface OutboxOptions<State, Event> {
  /** The outbox table (see {@link outboxTableDefinition}); may be the read model's table. */
  readonly table: string;
  /** The message for an applied event, or `undefined` for none. @defaultValue the event itself */
  readonly message?: (event: Event, context: { readonly key: Readonly<Record<string, unknown>>; readonly state: State | undefined }) => unknown;
}

/** An outbox message as the relay hands it to `publish`. */
export interface OutboxMessage {
  /** Stable across redeliveries: `<stream name>#<stream id>#<version>`. Deduplicate on it. */
  readonly id: string;
  readonly projection: string;
  /** The key fields of the row whose write produced the message. */
  readonly key: Readonly<Record<string, unknown>>;
  readonly message: unknown;
  readonly createdAt: string;
}

/** Outbox items' attributes. */
export const OutboxLayout = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** On outbox items: the projection's name. The relay keys on it. */
  marker: '_dfOutbox',
} as const;

const REVISION_DIGITS = 12;

/**
 * Builds the outbox Puts of a row write. Messages of a row share a partition and sort by the row's
 * revision and their place in the write, so the relay publishes them in the order they were applied.
 */
export class OutboxWriter {
  constructor(
    private readonly projection: string,
    private readonly readModel: ReadModel,
    private readonly options: OutboxOptions<unknown, StreamEvent>,
  ) {
    if (typeof options.table !== 'string' || options.table.length < 3) {
      throw new ConfigurationError(`Projection ${projection}: expected \`outbox.table\` to be a table name of at least 3 characters.`);
    }
  }

  /** The partition holding one row's messages. */
  partition(key: Readonly<Record<string, unknown>>): string {
    return `${this.projection}#${Object.values(this.readModel.keyOf(key)).join('#')}`;
  }

  messages(key: Readonly<Record<string, unknown>>, item: Readonly<Record<string, unknown>>, applied: ReadonlyArray<StreamEvent>, state: unknown): ExtraPut[] {
    const revision = String(item[RowAttributes.revision]).padStart(REVISION_DIGITS, '0');
    const createdAt = new Date().toISOString();
    const puts: ExtraPut[] = [];
    applied.forEach((event, index) => {
      const message = this.options.message === undefined ? event : this.options.message(event, { key, state });
      if (message === undefined) return;
      puts.push({
        table: this.options.table,
        item: {
          [OutboxLayout.partitionKey]: this.partition(key),
          [OutboxLayout.sortKey]: `${revision}#${String(index).padStart(3, '0')}`,
          [OutboxLayout.marker]: this.projection,
          id: `${event.streamName}#${event.streamId}#${event.version}`,
          key,
          message: JSON.parse(JSON.stringify(message)) as unknown,
          createdAt,
        },
      });
    });
    return puts;
  }
}

/**
 * The CreateTable input of an outbox table: `pk` + `sk` strings, on-demand, with a NEW_IMAGE stream the
 * relay can run on (from Lambda or the change feed).
 */
export function outboxTableDefinition(tableName: string): CreateTableCommandInput {
  return streamedTableDefinition(tableName, 'NEW_IMAGE');
}
