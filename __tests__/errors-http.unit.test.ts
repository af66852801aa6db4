/**
 * Errors over HTTP: every code has a status (the caller's fault 4xx, the store's 5xx), JSON keeps what
 * JSON.stringify of an Error drops, and Problem Details (RFC 9457) carry the code and payload.
 */
import {
  AppendContentionError,
  ConcurrencyError,
  DynamoRequestError,
  DynafoldError,
  ErrorCodes,
  HttpStatuses,
  ReadYourWritesTimeoutError,
  ValidationError,
} from 'dynafold';

test('every code has an HTTP status, 4xx or 5xx', () => {
  expect(Object.keys(HttpStatuses).sort()).toEqual([...ErrorCodes].sort());
  for (const status of Object.values(HttpStatuses)) expect(status >= 400 && status <= 599).toBe(true);
  expect(HttpStatuses['store.validation']).toBe(400);
  expect(HttpStatuses['store.concurrency']).toBe(409);
});

test('a concurrency conflict is 409, or 412 when the request carried a precondition', () => {
  const conflict = new ConcurrencyError('Order', 'o-1', 3, 5);
  expect(conflict.status).toBe(409);
  expect(conflict.httpStatus()).toBe(409);
  expect(conflict.httpStatus({ precondition: true })).toBe(412);
  expect(new ValidationError('bad').httpStatus({ precondition: true })).toBe(400);
});

test('JSON keeps the name, code, message, status, payload and the cause without its stack', () => {
  const cause = Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' });
  const conflict = new ConcurrencyError('Order', 'o-1', 3, 5, { cause });
  expect(JSON.parse(JSON.stringify(conflict))).toEqual({
    name: 'ConcurrencyError',
    code: 'store.concurrency',
    message: conflict.message,
    status: 409,
    streamName: 'Order',
    streamId: 'o-1',
    expectedVersion: 3,
    actualVersion: 5,
    cause: { name: 'ProvisionedThroughputExceededException', message: 'Throughput exceeds the current capacity' },
  });
  const invalid = new ValidationError('Event OrderPlaced is invalid', [{ path: ['customer'], message: 'Required' } as never]);
  expect(JSON.parse(JSON.stringify({ error: invalid }))).toMatchObject({
    error: { code: 'store.validation', status: 400, issues: [{ message: 'Required' }] },
  });
});

test('Problem Details: type from the code, title, status, detail, instance, and the payload as extension members, never the cause', () => {
  const conflict = new ConcurrencyError('Order', 'o-1', 3, 5, { cause: new Error('internal') });
  expect(conflict.toProblem({ instance: '/orders/o-1', precondition: true })).toEqual({
    type: 'urn:dynafold:error:store.concurrency',
    title: 'ConcurrencyError',
    status: 412,
    detail: conflict.message,
    instance: '/orders/o-1',
    code: 'store.concurrency',
    streamName: 'Order',
    streamId: 'o-1',
    expectedVersion: 3,
    actualVersion: 5,
  });
  const upstream = new DynamoRequestError('GetItem', new Error('socket hang up'));
  expect(upstream.toProblem({ typeBase: 'https://docs.example.com/errors#' })).toMatchObject({
    type: 'https://docs.example.com/errors#dynamo.request',
    status: 502,
    code: 'dynamo.request',
  });
  expect(upstream.toProblem()).not.toHaveProperty('cause');
  expect(DynafoldError.is(upstream, 'dynamo.request')).toBe(true);
});

test("a server's error (5xx) answers a generic detail and its code, never its message or payload; a client's error (4xx) keeps both", () => {
  const denied = Object.assign(new Error('User: arn:aws:sts::123456789012:assumed-role/api/i-1 is not authorized on table/orders'), {
    name: 'AccessDeniedException',
  });
  const upstream = new DynamoRequestError('PutItem', denied).toProblem({ instance: '/orders/o-1' });
  expect(upstream).toEqual({
    type: 'urn:dynafold:error:dynamo.request',
    title: 'DynamoRequestError',
    status: 502,
    detail: 'A request to the database failed. The error is logged; try again later.',
    instance: '/orders/o-1',
    code: 'dynamo.request',
  });
  const busy = new AppendContentionError('Order', 'o-1', 12, 1300).toProblem();
  expect(busy).toEqual(expect.objectContaining({ status: 503, code: 'store.appendContention', detail: 'The service is busy. Try again later.' }));
  expect(busy).not.toHaveProperty('streamId');
  const late = new ReadYourWritesTimeoutError('summaries', { orderId: 'o-1' }, 'Order#o-1', 3, 2, 5000).toProblem();
  expect(late).toMatchObject({ status: 504, detail: expect.stringMatching(/^The change is stored/) });
  expect(late).not.toHaveProperty('key');
  expect(JSON.stringify(late)).not.toMatch(/summaries|o-1/);
  const conflict = new ConcurrencyError('Order', 'o-1', 3, 5).toProblem();
  expect(conflict).toMatchObject({ status: 409, detail: expect.stringContaining('version 5'), actualVersion: 5 });
});
