/**
 * The names dynafold's spans and metrics carry: the semantic conventions' where they have one (database
 * client spans, messaging consumer spans), `dynafold.*` for the rest. The observability guide lists them.
 */
export const Attr = {
  dbSystem: 'db.system.name',
  dbOperation: 'db.operation.name',
  dbCollection: 'db.collection.name',
  dbSummary: 'db.query.summary',
  tableNames: 'aws.dynamodb.table_names',
  consumedCapacity: 'aws.dynamodb.consumed_capacity',
  messagingSystem: 'messaging.system',
  messagingOperation: 'messaging.operation.name',
  messagingOperationType: 'messaging.operation.type',
  messagingDestination: 'messaging.destination.name',
  messagingPartition: 'messaging.destination.partition.id',
  messagingBatchCount: 'messaging.batch.message_count',
  messagingMessageId: 'messaging.message.id',
  errorType: 'error.type',
  streamName: 'dynafold.stream.name',
  streamId: 'dynafold.stream.id',
  eventCount: 'dynafold.event.count',
  eventVersions: 'dynafold.event.versions',
  expectedVersion: 'dynafold.expected_version',
  version: 'dynafold.version',
  projection: 'dynafold.projection.name',
  rowKey: 'dynafold.row.key',
  rowWritten: 'dynafold.row.written',
  transport: 'dynafold.transport',
  recordsFailed: 'dynafold.records.failed',
  errorCode: 'dynafold.error.code',
  attempt: 'dynafold.attempt',
  segment: 'dynafold.backfill.segment',
  leaseChange: 'dynafold.lease.change',
  replaySkip: 'dynafold.replay.skip',
  consumer: 'dynafold.feed.consumer',
  outboxTable: 'dynafold.outbox.table',
  timerName: 'dynafold.timer.name',
  timerOutcome: 'dynafold.timer.outcome',
} as const;

/** `db.system.name` of every database span: the conventions' value for DynamoDB. */
export const DB_SYSTEM = 'aws.dynamodb';

/**
 * `messaging.system` of the spans that process stream records. The conventions have no value for
 * DynamoDB Streams (nor for Kinesis Data Streams): these follow the `aws.*` namespace of `aws.dynamodb`
 * and of the conventions' `aws.sns`.
 */
export const MessagingSystem = { dynamodbStreams: 'aws.dynamodb.streams', kinesis: 'aws.kinesis' } as const;

/** The events dynafold adds to its spans. */
export const SpanEvents = {
  /** An append (or a command's) try lost its version to another writer and goes again. */
  retry: 'dynafold.retry',
  /** An append's try found its version taken by another writer. */
  conflict: 'dynafold.conflict',
  /** A row failed: its records are reported for a redelivery. */
  rowFailed: 'dynafold.row.failed',
  /** A row was parked by the `poison` policy. */
  rowParked: 'dynafold.row.parked',
} as const;

/** How a metric is recorded. */
export type MetricKind = 'counter' | 'histogram';

/** One metric: its name, kind, unit (UCUM, as the conventions write them) and what it counts. */
export interface MetricDefinition {
  readonly name: string;
  readonly kind: MetricKind;
  readonly unit: string;
  readonly description: string;
  /** The attributes each measurement carries. */
  readonly attributes: ReadonlyArray<string>;
}

const counter = (name: string, unit: string, description: string, attributes: ReadonlyArray<string>): MetricDefinition & { kind: 'counter' } => ({
  name,
  kind: 'counter',
  unit,
  description,
  attributes,
});
const histogram = (name: string, description: string, attributes: ReadonlyArray<string>): MetricDefinition & { kind: 'histogram' } => ({
  name,
  kind: 'histogram',
  unit: 's',
  description,
  attributes,
});

/**
 * Every metric dynafold records through the OpenTelemetry meter, in one table: the observability guide
 * shows it, and a test checks that the guide and this table agree. Durations are in seconds, as the
 * conventions ask of histograms (the `onMetrics` callbacks keep milliseconds).
 */
export const Metrics = {
  eventsAppended: counter('dynafold.events.appended', '{event}', 'Events appended.', [Attr.streamName]),
  appendConflicts: counter(
    'dynafold.append.conflicts',
    '{conflict}',
    "Tries of an append (or a command's) that found their version taken by another writer.",
    [Attr.streamName],
  ),
  records: counter('dynafold.records', '{record}', 'Stream records handed to processBatch.', [Attr.transport]),
  recordsFailed: counter(
    'dynafold.records.failed',
    '{record}',
    'Records reported in batchItemFailures (a failed row, an undecodable record), for a redelivery.',
    [Attr.transport],
  ),
  recordsUndecodable: counter('dynafold.records.undecodable', '{record}', 'Records that failed to decode.', [Attr.transport]),
  eventsApplied: counter('dynafold.events.applied', '{event}', 'Events folded into rows by a batch.', [Attr.projection]),
  eventsAlreadyApplied: counter('dynafold.events.already_applied', '{event}', "A batch's events its rows had already (redeliveries).", [
    Attr.projection,
  ]),
  rowsWritten: counter('dynafold.rows.written', '{row}', 'Row writes that went through.', [Attr.projection]),
  rowsFailed: counter('dynafold.rows.failed', '{row}', 'Rows that failed in a batch.', [Attr.projection]),
  rowsParked: counter('dynafold.rows.parked', '{row}', 'Rows parked, or set aside because they were parked.', [Attr.projection]),
  gapReads: counter('dynafold.gap_reads', '{read}', 'Strongly consistent reads of a stream to fill a gap.', [Attr.projection]),
  lostRaces: counter('dynafold.lost_races', '{race}', 'Row writes that lost to a concurrent writer and were tried again.', [Attr.projection]),
  batchDuration: histogram('dynafold.batch.duration', 'How long processBatch took over a batch.', [Attr.transport]),
  projectionLag: histogram('dynafold.projection.lag', "From an event's append to the write of its row, for each event a delivery applies.", [
    Attr.projection,
  ]),
  iteratorAge: histogram(
    'dynafold.feed.iterator_age',
    "Age of the oldest record of each change-feed read (now minus its ApproximateCreationDateTime), as Lambda's IteratorAge.",
    [Attr.consumer],
  ),
  leaseChanges: counter('dynafold.feed.lease.changes', '{change}', "The change feed's lease taken, released or lost.", [
    Attr.consumer,
    Attr.leaseChange,
  ]),
  backfillInstances: counter('dynafold.backfill.instances', '{instance}', 'Stream instances a backfill brought up to date.', [Attr.projection]),
  backfillEvents: counter('dynafold.backfill.events', '{event}', 'Events a backfill applied.', [Attr.projection]),
} as const satisfies Record<string, MetricDefinition>;
