/**
 * A 5xx answer tells the client nothing of the internals: an AccessDeniedException names the account,
 * the role and the table, and that goes to the log, never to the body. Faults come from a middleware on
 * a real client, so the error is the one the SDK would raise.
 */
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import express from 'express';
import Fastify from 'fastify';
import { z } from 'zod';
import { ErrorCodes, EventStream, eventsTableDefinition } from 'dynafold';
import { dynafold } from 'dynafold/fastify';
import { dynafold as dynafoldExpress, problemHandler } from 'dynafold/express';
import { createTestTable, localConfig, testClient } from '../support/dynamo';

const client = testClient();
afterAll(() => client.destroy());

const account = '123456789012';
const role = `arn:aws:sts::${account}:assumed-role/orders-api/i-0abc`;

/** A real client whose every request is refused as IAM refuses it: the message names the account, role and table. */
function deniedClient(table: string): DynamoDBClient {
  const denied = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  denied.middlewareStack.add(
    (_next, context) => async () => {
      throw new DynamoDBServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400, requestId: 'REQ1' },
        message: `User: ${role} is not authorized to perform: dynamodb:${String(context.commandName).replace(/Command$/, '')} on resource: arn:aws:dynamodb:eu-west-1:${account}:table/${table} because no identity-based policy allows the action`,
      });
    },
    { step: 'finalizeRequest', name: 'accessDenied' },
  );
  return denied;
}

async function deniedNotes() {
  const table = (await createTestTable(client, eventsTableDefinition, 'secret-events')).name;
  const denied = deniedClient(table);
  const notes = new EventStream({ client: denied, table, name: 'Note', streamId: ['noteId'], events: { Noted: z.object({ text: z.string() }) } });
  return { table, denied, notes };
}

/** The body is a dynafold error's Problem Details that leaks none of what the SDK error said. */
function expectNothingInternal(body: string, table: string): void {
  expect(ErrorCodes).toContain((JSON.parse(body) as { code: string }).code);
  // Our code and class name (dynamo.accessDenied) may show; the SDK's error, its message and what it names may not.
  for (const secret of [account, 'arn:aws', table, 'AccessDeniedException', 'not authorized', 'TransactWriteItems', 'Query'])
    expect(body).not.toContain(secret);
}

test('Fastify: an AccessDenied behind a route is a 5xx with a generic detail and the code; the cause is logged', async () => {
  const { table, denied, notes } = await deniedNotes();
  const logged: string[] = [];
  const consoleError = jest.spyOn(console, 'error').mockImplementation((line: unknown) => void logged.push(String(line)));
  const app = Fastify();
  try {
    await app.register(dynafold, { streams: { notes } });
    app.post('/notes/:id', async (request) =>
      notes.append({ noteId: (request.params as { id: string }).id }, [{ type: 'Noted', data: { text: 'a' } }]),
    );
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const answer = await fetch(`${base}/notes/n-1`, { method: 'POST' });
    const body = await answer.text();
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(body)).toEqual({
      type: expect.stringMatching(/^urn:dynafold:error:/),
      title: expect.any(String),
      status: answer.status,
      detail: expect.any(String),
      instance: '/notes/n-1',
      code: expect.any(String),
    });
    expectNothingInternal(body, table);
    // Fastify() has no logger: the cause goes to the console as one JSON line, with all it said.
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0] ?? '')).toMatchObject({ level: 'error', method: 'POST', url: '/notes/n-1', status: answer.status });
    expect(logged[0]).toContain(role);
  } finally {
    consoleError.mockRestore();
    await app.close();
    denied.destroy();
  }
});

test('Express: an AccessDenied behind a route is a 5xx with a generic detail and the code; the cause goes to the integration logger', async () => {
  const { table, denied, notes } = await deniedNotes();
  const logged: unknown[][] = [];
  const logger = { error: (...args: unknown[]) => void logged.push(args) };
  const app = express();
  dynafoldExpress(app, { streams: { notes }, logger });
  app.get('/notes/:id', async (request, response) => {
    response.json(await notes.read({ noteId: request.params.id }));
  });
  app.use(problemHandler());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/notes/n-1`);
    const body = await answer.text();
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(JSON.parse(body)).toEqual({
      type: expect.stringMatching(/^urn:dynafold:error:/),
      title: expect.any(String),
      status: answer.status,
      detail: expect.any(String),
      instance: '/notes/n-1',
      code: expect.any(String),
    });
    expectNothingInternal(body, table);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.[0]).toBe('request failed');
    expect(JSON.stringify(logged[0]?.[1])).toContain(role);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    denied.destroy();
  }
});
