import {
  BatchGetItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type ConsumedCapacity,
  UpdateItemCommand,
  type AttributeValue,
  type PutItemCommandInput,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import type {
  BatchGetCommandInput,
  DynamoDBDocumentClient,
  GetCommandInput,
  PutCommandInput,
  QueryCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

/*
 * The requests the hot paths send (a commit's Put, a load's Query, a row's read and write), as the document
 * client would send them, plain values in and out, but through the low-level commands with the marshalling
 * done here. A document client's command costs about a tenth of an append's CPU on top of the low-level one
 * (a command and a middleware stack of its own for each request, resolved every time); the requests are the
 * same bytes. `documents` may be a view of the document client (`withSignal`, `withCapacity`): its `send`
 * takes any command of the client's.
 */

type Item = Record<string, unknown>;
type Attributes = Record<string, AttributeValue>;

/** The document client's marshalling: `undefined` values are left out, as its `removeUndefinedValues`. */
const MARSHALL = { removeUndefinedValues: true } as const;

function toAttributes(item: Item): Attributes;
function toAttributes(item: Item | undefined): Attributes | undefined;
function toAttributes(item: Item | undefined): Attributes | undefined {
  return item === undefined ? undefined : marshall(item, MARSHALL);
}

function fromAttributes(item: Attributes | undefined): Item | undefined {
  return item === undefined ? undefined : unmarshall(item);
}

function send<Output>(documents: DynamoDBDocumentClient, command: unknown): Promise<Output> {
  return (documents.send as unknown as (command: unknown) => Promise<Output>)(command);
}

/** A Query; its items and last evaluated key plain. */
export async function sendQuery(
  documents: DynamoDBDocumentClient,
  input: QueryCommandInput,
): Promise<{ Items?: Item[] | undefined; LastEvaluatedKey?: Item | undefined; ConsumedCapacity?: ConsumedCapacity | undefined }> {
  const { ExpressionAttributeValues, ExclusiveStartKey, ...rest } = input;
  const output = await send<{ Items?: Attributes[]; LastEvaluatedKey?: Attributes; ConsumedCapacity?: ConsumedCapacity }>(
    documents,
    new QueryCommand({
      ...rest,
      ...(ExpressionAttributeValues === undefined ? {} : { ExpressionAttributeValues: toAttributes(ExpressionAttributeValues) }),
      ...(ExclusiveStartKey === undefined ? {} : { ExclusiveStartKey: toAttributes(ExclusiveStartKey) }),
    }),
  );
  return { ...output, Items: output.Items?.map((item) => unmarshall(item)), LastEvaluatedKey: fromAttributes(output.LastEvaluatedKey) };
}

/** A GetItem; its item plain. */
export async function sendGetItem(documents: DynamoDBDocumentClient, input: GetCommandInput): Promise<{ Item?: Item | undefined }> {
  const output = await send<{ Item?: Attributes }>(documents, new GetItemCommand({ ...input, Key: toAttributes(input.Key as Item) }));
  return { ...output, Item: fromAttributes(output.Item) };
}

/** A BatchGetItem of keys of one or more tables; its responses and unprocessed keys plain. */
export async function sendBatchGet(
  documents: DynamoDBDocumentClient,
  input: BatchGetCommandInput,
): Promise<{ Responses?: Record<string, Item[]> | undefined; UnprocessedKeys?: Record<string, { Keys?: Item[] | undefined }> | undefined }> {
  const requests = Object.fromEntries(
    Object.entries(input.RequestItems ?? {}).map(([table, request]) => [
      table,
      { ...request, Keys: (request.Keys ?? []).map((key) => toAttributes(key)) },
    ]),
  );
  const output = await send<{ Responses?: Record<string, Attributes[]>; UnprocessedKeys?: Record<string, { Keys?: Attributes[] }> }>(
    documents,
    new BatchGetItemCommand({ ...input, RequestItems: requests }),
  );
  const plainItems = (items: Attributes[] | undefined) => items?.map((item) => unmarshall(item));
  return {
    ...output,
    Responses: output.Responses === undefined ? undefined : mapValues(output.Responses, (items) => plainItems(items) ?? []),
    UnprocessedKeys:
      output.UnprocessedKeys === undefined
        ? undefined
        : mapValues(output.UnprocessedKeys, (request) => ({ ...request, Keys: plainItems(request.Keys) })),
  };
}

/** A PutItem of a plain item (and plain condition values). */
export function sendPutItem(documents: DynamoDBDocumentClient, input: PutCommandInput): Promise<unknown> {
  return send(documents, new PutItemCommand(withAttributes(input, 'Item') as PutItemCommandInput));
}

/** An UpdateItem of a plain key (and plain expression values). */
export function sendUpdateItem(documents: DynamoDBDocumentClient, input: UpdateCommandInput): Promise<unknown> {
  return send(documents, new UpdateItemCommand(withAttributes(input, 'Key') as UpdateItemCommandInput));
}

/** A write's input with its item or key, and its expression values, as DynamoDB's attribute values. */
function withAttributes(input: PutCommandInput | UpdateCommandInput, field: 'Item' | 'Key'): unknown {
  const { ExpressionAttributeValues: values, ...rest } = input;
  const plain = (input as Record<string, unknown>)[field] as Item;
  return { ...rest, [field]: toAttributes(plain), ...(values === undefined ? {} : { ExpressionAttributeValues: toAttributes(values) }) };
}

function mapValues<T, U>(record: Record<string, T>, f: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));
}
