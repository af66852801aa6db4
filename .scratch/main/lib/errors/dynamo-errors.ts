import { DynafoldError, type ErrorOptions } from './dynafold-error';

function tableList(tables: ReadonlyArray<string>): string {
  return tables.length === 1 ? `table "${tables[0]}"` : `one of the tables ${tables.map((table) => `"${table}"`).join(', ')}`;
}

/** A DynamoDB request failed for a reason dynafold does not handle itself; `cause` is the SDK error. */
export class DynamoRequestError extends DynafoldError {
  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super('dynamo.request', `DynamoDB ${operation} failed: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`, { cause });
  }
}

/**
 * DynamoDB has no table of that name where the client points (DynamoDB's `ResourceNotFoundException`):
 * the deployment is wrong, not the request. `table` is the table the request named first (the events
 * table of an append, the read model of a row); `tables` every table it named (a transaction may span
 * a read model and its outbox).
 */
export class TableNotFoundError extends DynafoldError {
  readonly table: string;

  constructor(
    readonly operation: string,
    readonly tables: ReadonlyArray<string>,
    options?: ErrorOptions,
  ) {
    super(
      'dynamo.tableNotFound',
      `DynamoDB ${operation} failed: ${tableList(tables)} does not exist. Create it (\`dynafold tables create\`, or the ` +
        "table definitions of `dynafold/cdk`), or check the table name and the client's region and endpoint.",
      options,
    );
    this.table = tables[0] ?? '';
  }
}

/**
 * The stream a change feed reads is not there (DynamoDB Streams' `ResourceNotFoundException`): a wrong or
 * stale `streamArn` (re-enabling a table's stream gives it a new ARN), or a table without a stream.
 */
export class StreamNotFoundError extends DynafoldError {
  constructor(
    readonly operation: string,
    readonly streamArn: string,
    /** The table the ARN names, `undefined` when it names none. */
    readonly table: string | undefined,
    options?: ErrorOptions,
  ) {
    super(
      'dynamo.streamNotFound',
      `DynamoDB Streams ${operation} failed: stream ${streamArn} does not exist. Pass the table's current \`LatestStreamArn\` ` +
        '(it changes when the stream is enabled again), enable the stream (`dynafold tables create` creates tables with ' +
        "theirs), or check the client's region and endpoint.",
      options,
    );
  }
}

/**
 * DynamoDB refused an operation on a table to the client's credentials (`AccessDeniedException`): the
 * role or user lacks the permission, or the client signs as someone else than intended.
 */
export class AccessDeniedError extends DynafoldError {
  readonly table: string;

  constructor(
    readonly operation: string,
    readonly tables: ReadonlyArray<string>,
    options?: ErrorOptions,
  ) {
    super(
      'dynamo.accessDenied',
      `DynamoDB denied ${operation} on ${tableList(tables)}: grant the credentials \`dynamodb:${operation}\` on it ` +
        '(the grants of `dynafold/cdk` list what each part needs), or check which profile or role the client uses.',
      options,
    );
    this.table = tables[0] ?? '';
  }
}
