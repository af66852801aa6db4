import { request, type RequestTables } from './request';

/** One page of a Query or Scan as the document client answers it. */
export interface Page {
  readonly Items?: Array<Record<string, unknown>> | undefined;
  readonly LastEvaluatedKey?: Record<string, unknown> | undefined;
}

/**
 * The items of a Query or Scan, a page at a time (`send` is called with each page's start key), until
 * DynamoDB reports no `LastEvaluatedKey`: results of any size in bounded memory.
 */
export async function* pages(
  operation: string,
  tables: RequestTables,
  send: (exclusiveStartKey: Record<string, unknown> | undefined) => Promise<Page>,
): AsyncGenerator<Array<Record<string, unknown>>> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await request(operation, tables, () => send(start));
    yield page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
}
