import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { z } from 'zod';
import { ConcurrencyError, ConfigurationError, EventStream, eventsTableDefinition } from 'dynafold';
import { ChangeFeedConsumer, MemoryCheckpointStore, type ChangeFeedOptions } from 'dynafold/feed';
import { dynafold, expectedVersionOf } from 'dynafold/fastify';
import { dynafold as dynafoldExpress, notFoundHandler, problemHandler } from 'dynafold/express';
import { streamsClient, localFeed } from '../feed/support';
import { createTestTable, testClient } from '../support/dynamo';

const client = testClient();
const streams = streamsClient();
afterAll(() => {
  client.destroy();
  streams.destroy();
});

const noteEvents = { Noted: z.object({ text: z.string() }) };

async function setUp() {
  const table = await createTestTable(client, eventsTableDefinition, 'svc-events');
  const notes = new EventStream({ client, table: table.name, name: 'Note', streamId: ['noteId'], events: noteEvents });
  const checkpoints = new MemoryCheckpointStore();
  const consumer: ChangeFeedOptions = {
    streamsClient: streams,
    streamArn: table.streamArn as string,
    consumer: 'svc',
    checkpoints,
    ...localFeed,
    lease: { durationMs: 30_000, onHeld: 'fail' },
  };
  return { notes, consumer };
}

/** Listens on a free port (jest can't load light-my-request's ESM `cookie`, so no `inject`): the app's base URL. */
async function listen(app: ReturnType<typeof Fastify>): Promise<string> {
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** Polls `condition` every 20 ms until it holds, failing after `timeoutMs`. */
async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An unknown route's answer: 404 Problem Details naming the method and path. */
async function expectNotFound(answer: Response, route: string, instance: string): Promise<void> {
  expect(answer.status).toBe(404);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(await answer.json()).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: `No route serves ${route}.`, instance });
}

test('the Fastify plugin decorates the app, runs the feed from ready to close, and reports its health', async () => {
  const { notes, consumer } = await setUp();
  let records = 0;
  const app = Fastify();
  await app.register(dynafold, {
    streams: { notes },
    healthPath: '/health',
    feed: { consumer, projections: {}, onBatch: (_result, batch) => void (records += batch.records.length) },
  });
  expect(app.dynafold.streams['notes']).toBe(notes);
  expect(app.dynafold.health()).toMatchObject({ healthy: false, feed: { state: 'not started' } });

  const base = await listen(app);
  await until(() => app.dynafold.health().feed?.state === 'running', 'the feed to run');
  await notes.append({ noteId: 'n-1' }, [{ type: 'Noted', data: { text: 'hi' } }]);
  await until(() => records === 1, 'the feed to read the append');
  const health = await fetch(`${base}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ healthy: true, feed: { healthy: true, state: 'running', status: { consumer: 'svc' } } });

  await app.close();
  expect(app.dynafold.health()).toMatchObject({ healthy: false, feed: { state: 'ended' } });
  // The lease went with the close: another consumer takes it at once (it would fail with LeaseHeldError).
  const next = new ChangeFeedConsumer(consumer);
  const pulled = next[Symbol.asyncIterator]().next();
  await until(() => next.status().state !== 'idle' && next.status().state !== 'starting', 'the next consumer to start');
  expect(next.status()).toMatchObject({ state: 'running', error: undefined });
  await next.stop();
  await expect(pulled).resolves.toMatchObject({ done: true });
});

test('a feed that fails makes the health route answer 503 with the error; routes answer Problem Details', async () => {
  const { notes, consumer } = await setUp();
  const app = Fastify();
  await app.register(dynafold, {
    streams: { notes },
    healthPath: '/health',
    feed: { consumer: { ...consumer, streamArn: `${consumer.streamArn}-gone` }, projections: {} },
  });
  app.post('/notes/:id', { schema: { body: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } }, async (request) => {
    const { id } = request.params as { id: string };
    return notes.append({ noteId: id }, [{ type: 'Noted', data: request.body as { text: string } }], { expectedVersion: 0 });
  });
  app.put('/notes/:id', async (request) => {
    const { id } = request.params as { id: string };
    const expectedVersion = expectedVersionOf(request.headers['if-match']);
    return notes.append({ noteId: id }, [{ type: 'Noted', data: { text: 'again' } }], expectedVersion === undefined ? {} : { expectedVersion });
  });
  app.get('/boom', async () => {
    throw new Error('a secret');
  });
  const base = await listen(app);
  await until(() => app.dynafold.health().feed?.state === 'failed', 'the feed to fail');
  const health = await fetch(`${base}/health`);
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({
    healthy: false,
    feed: { state: 'failed', error: { name: expect.any(String), message: expect.any(String) } },
  });

  const post = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/notes/${id}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  expect((await post('n-1', { text: 'a' })).status).toBe(200);
  const conflict = await post('n-1', { text: 'b' }, { 'if-match': '"0"' });
  expect(conflict.status).toBe(412);
  expect(conflict.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(await conflict.json()).toMatchObject({ code: 'store.concurrency', actualVersion: 1, instance: '/notes/n-1' });
  // A strong ETag past any version a stream can reach is stale like any other, not a bad request.
  for (const etag of ['"12345678901"', '"123456789012345678901234567890"']) {
    const beyond = await fetch(`${base}/notes/n-1`, { method: 'PUT', headers: { 'if-match': etag } });
    expect(beyond.status).toBe(412);
    expect(await beyond.json()).toMatchObject({ code: 'store.concurrency', actualVersion: 1 });
  }
  const missing = await post('n-2', {});
  expect(missing.status).toBe(400);
  expect(await missing.json()).toMatchObject({ type: 'about:blank', title: 'Bad Request', issues: [{ path: ['text'] }] });
  await expectNotFound(await fetch(`${base}/nowhere?x=1`, { method: 'DELETE' }), 'DELETE /nowhere', '/nowhere?x=1');
  const boom = await fetch(`${base}/boom`);
  expect(boom.status).toBe(500);
  expect(await boom.text()).not.toMatch(/secret/);
  await app.close();
});

test('Express: app.locals, problemHandler over HTTP, and the feed stopped when the server closes', async () => {
  const { notes, consumer } = await setUp();
  const app = express();
  const service = dynafoldExpress(app, { streams: { notes }, healthPath: '/health', feed: { consumer, projections: {} } });
  expect(app.locals['dynafold']).toBe(service.services);
  app.post('/notes/:id', express.json(), async (request, response) => {
    const { text } = z.object({ text: z.string().min(1) }).parse(request.body);
    response.json(await notes.append({ noteId: request.params.id }, [{ type: 'Noted', data: { text } }], { expectedVersion: 0 }));
  });
  app.use(notFoundHandler());
  app.use(problemHandler());
  const server = service.closeWith(app.listen(0, '127.0.0.1'));
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await until(async () => (await fetch(`${base}/health`)).status === 200 && service.services.health().feed?.state === 'running', 'the feed to run');
    const post = (body: string) => fetch(`${base}/notes/n-1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('{"text":"a"}')).status).toBe(200);
    const conflict = await post('{"text":"b"}');
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ code: 'store.concurrency', expectedVersion: 0, actualVersion: 1 });
    const invalid = await post('{"text":""}');
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ type: 'about:blank', title: 'Bad Request', issues: [{ path: ['text'] }] });
    const unparsable = await post('{"text":');
    expect(unparsable.status).toBe(400);
    expect(await unparsable.json()).toMatchObject({ type: 'about:blank', title: 'Bad Request' });
    await expectNotFound(await fetch(`${base}/nowhere`), 'GET /nowhere', '/nowhere');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  await until(() => service.services.health().feed?.state === 'ended', 'the server close to stop the feed');
  await service.close();
});

test('a feed that cannot start fails the Fastify app at ready, and the Express health with its error', async () => {
  const { consumer } = await setUp();
  const broken = { consumer: { ...consumer, pollIntervalMs: -1 }, projections: {} };
  await expect(Fastify().register(dynafold, { feed: broken }).ready()).rejects.toBeInstanceOf(ConfigurationError);
  const service = dynafoldExpress(express(), { feed: broken });
  await expect(service.start()).rejects.toBeInstanceOf(ConfigurationError);
  expect(service.services.health()).toMatchObject({ healthy: false, feed: { state: 'not started', error: { name: 'ConfigurationError' } } });
  await service.close();
});

test('bad options are a ConfigurationError naming the option', async () => {
  await expect(
    Fastify()
      .register(dynafold, { streams: { notes: {} as EventStream } })
      .ready(),
  ).rejects.toThrow(/`streams.notes`/);
  expect(() => dynafoldExpress(express(), { healthPath: 'health' })).toThrow(ConfigurationError);
  expect(() => dynafoldExpress(express(), { feed: {} as never })).toThrow(/`feed`/);
  expect(new ConcurrencyError('A', 'b', 0, 1).httpStatus({ precondition: true })).toBe(412);
});
