import { DescribeTableCommand, ListTablesCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ItemBook, schemaOf, type Item } from './item-book';
import { billRequest, type Outcome } from './request-bill';
import { dollars } from './pricing';

/**
 * Request units AWS would bill for what a client sent, by the rules of `pricing.ts`. The bill is made when
 * its figures are read, not as each answer comes: sizing an item costs this process CPU (a wire item is
 * unmarshalled first), which would otherwise land in the latency of the library that sent it, more for one
 * that sends the low-level commands than for one that reads a document client's plain items.
 */
export interface Billed {
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Requests whose bill was partly estimated (an Update in a transaction, a filtered Query, a nested projection). */
  readonly approximations: number;
  /** While set, requests pass unbilled (see `unmetered`): items written meanwhile are not in the book. */
  paused: boolean;
  /** On-demand dollars of the units so far. */
  dollars(): number;
  reset(): void;
}

type Input = Record<string, unknown>;

/** Reads whose items the bill must see whole: AWS bills the item read, not the attributes projected out of it. */
const PROJECTABLE = new Set(['GetItem', 'Query', 'Scan']);
const CONDITION_FAILURES: Readonly<Record<string, 'condition' | 'cancelled'>> = {
  ConditionalCheckFailedException: 'condition',
  TransactionCanceledException: 'cancelled',
};

/** The top-level attribute names of a projection of top-level attributes only; `undefined` when one path is nested. */
function projectedNames(input: Input): string[] | undefined {
  const names = (input['ExpressionAttributeNames'] ?? {}) as Record<string, string>;
  const paths = String(input['ProjectionExpression'])
    .split(',')
    .map((path) => path.trim());
  if (paths.some((path) => /[.[]/.test(path))) return undefined;
  return paths.map((path) => names[path] ?? path);
}

/** The input without its projection (and without the names only the projection used: DynamoDB refuses unused names). */
function unprojected(input: Input): Input {
  const { ProjectionExpression: _, Select: __, ...rest } = input;
  const used = new Set(
    ['KeyConditionExpression', 'FilterExpression', 'ConditionExpression']
      .map((name) => rest[name])
      .flatMap((expression) => (typeof expression === 'string' ? (expression.match(/#[A-Za-z0-9_]+/g) ?? []) : [])),
  );
  const names = Object.entries((rest['ExpressionAttributeNames'] ?? {}) as Record<string, string>).filter(([token]) => used.has(token));
  const { ExpressionAttributeNames: ___, ...withoutNames } = rest;
  return names.length === 0 ? withoutNames : { ...withoutNames, ExpressionAttributeNames: Object.fromEntries(names) };
}

const only = (item: Item, names: ReadonlyArray<string>): Item =>
  Object.fromEntries(names.filter((n) => item[n] !== undefined).map((n) => [n, item[n]]));

/**
 * What is sent and how the answer goes back: a read's projection is dropped so the whole items come back
 * (and re-applied to the answer), a `Select: 'COUNT'` likewise, and an UpdateItem that asked for nothing
 * asks for ALL_NEW (and gets nothing back). The library sees the answer it asked for.
 */
function rewrite(operation: string, input: Input): { sent: Input; answer: (output: Item) => Item } {
  const keep = (output: Item) => output;
  if (PROJECTABLE.has(operation) && input['ProjectionExpression'] !== undefined) {
    const names = projectedNames(input);
    if (names === undefined) return { sent: input, answer: keep };
    const project = (output: Item): Item => {
      const found = output['Items'];
      if (Array.isArray(found)) return { ...output, Items: (found as Item[]).map((item) => only(item, names)) };
      const item = output['Item'] as Item | undefined;
      return item === undefined ? output : { ...output, Item: only(item, names) };
    };
    return { sent: unprojected(input), answer: project };
  }
  if ((operation === 'Query' || operation === 'Scan') && input['Select'] === 'COUNT') {
    const { Select: _, ...sent } = input;
    return { sent, answer: ({ Items: __, ...output }) => output };
  }
  if (operation === 'UpdateItem' && (input['ReturnValues'] === undefined || input['ReturnValues'] === 'NONE')) {
    return { sent: { ...input, ReturnValues: 'ALL_NEW' }, answer: ({ Attributes: _, ...output }) => output };
  }
  return { sent: input, answer: keep };
}

/**
 * Answers waiting for their bill, at most: past it they are billed at once (a long run holds no more of them).
 * As many as the largest timed round answers (Castore's projection in the full peers run: 6,000 requests),
 * so that no round's time holds its own billing (at 128, the quick run's command rounds billed two thirds of
 * their answers inside their own time).
 */
const PENDING_KEPT = 8_192;

/** Adds the billing middleware to `client`, keeping item sizes in `book` and at most `pendingKept` answers unbilled. */
export function attachBilling(client: DynamoDBClient, book: ItemBook, pendingKept = PENDING_KEPT): Billed {
  const units = { readUnits: 0, writeUnits: 0, approximations: 0 };
  // In the order they were answered: a write's bill depends on the size of the item it replaced.
  const pending: Array<() => void> = [];
  const settle = () => {
    for (const bill of pending.splice(0)) bill();
  };
  const add = (operation: string, input: Input, outcome: Outcome) => {
    const bill = billRequest(book, operation, input, outcome);
    if (bill === undefined) return;
    units.readUnits += bill.readUnits;
    units.writeUnits += bill.writeUnits;
    units.approximations += bill.approximations + (input['ProjectionExpression'] === undefined ? 0 : 1);
  };
  const later = (bill: () => void) => {
    pending.push(bill);
    if (pending.length > pendingKept) settle();
  };
  const b: Billed = {
    get readUnits() {
      settle();
      return units.readUnits;
    },
    get writeUnits() {
      settle();
      return units.writeUnits;
    },
    get approximations() {
      settle();
      return units.approximations;
    },
    paused: false,
    dollars: () => dollars(b.writeUnits, b.readUnits),
    reset: () => {
      settle();
      units.readUnits = units.writeUnits = units.approximations = 0;
    },
  };
  const id = Math.random().toString(36).slice(2);
  // Above the SDK's retry loop: AWS bills the request that was answered, not a throttled attempt.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (b.paused) return next(args);
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      const { sent, answer } = rewrite(operation, args.input as Input);
      let result: Awaited<ReturnType<typeof next>>;
      try {
        result = await next({ ...args, input: sent });
      } catch (error) {
        const failed = CONDITION_FAILURES[(error as { name?: string }).name ?? ''];
        if (failed !== undefined) later(() => add(operation, sent, { failed }));
        throw error;
      }
      const output = result.output as unknown as Item;
      later(() => {
        if (operation === 'CreateTable') book.describe(String(sent['TableName']), schemaOf(sent));
        add(operation, sent, { output });
      });
      return { ...result, output: answer(output) as unknown as typeof result.output };
    },
    { step: 'initialize', name: `benchBilled-${id}` },
  );
  return b;
}

/** Learns the schema of every table on the client's endpoint, then adds the billing middleware. */
export async function billed(client: DynamoDBClient, pendingKept = PENDING_KEPT): Promise<Billed> {
  const book = new ItemBook();
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    for (const name of page.TableNames ?? []) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      if (Table !== undefined) book.describe(name, schemaOf(Table));
    }
    start = page.LastEvaluatedTableName;
  } while (start !== undefined);
  return attachBilling(client, book, pendingKept);
}
