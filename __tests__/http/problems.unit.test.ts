import { z } from 'zod';
import * as zm from 'zod/mini';
import { ConcurrencyError, ValidationError } from 'dynafold';
import { etagOf, expectedVersionOf, problemOf } from 'dynafold/fastify';

describe('problemOf', () => {
  test('a conflict is 409, or 412 when the request carried If-Match, with its payload', () => {
    const conflict = new ConcurrencyError('Order', 'o-1', 1, 2);
    expect(problemOf(conflict, { instance: '/orders/o-1' })).toEqual({
      status: 409,
      body: expect.objectContaining({
        type: 'urn:dynafold:error:store.concurrency',
        status: 409,
        instance: '/orders/o-1',
        expectedVersion: 1,
        actualVersion: 2,
      }),
    });
    expect(problemOf(conflict, { precondition: true }).status).toBe(412);
    expect(problemOf(conflict, {}, { typeBase: 'https://example.com/problems/' }).body.type).toBe('https://example.com/problems/store.concurrency');
  });

  test("a zod error is a 400 with every field path, as your schema's verdict (about:blank, no dynafold code)", () => {
    const parsed = z
      .object({ sku: z.string().min(1), lines: z.array(z.object({ price: z.number() })) })
      .safeParse({ sku: '', lines: [{ price: 'x' }] });
    const { status, body } = problemOf(parsed.error, { instance: '/orders' });
    expect(status).toBe(400);
    expect(body).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: expect.stringMatching(/^The request is invalid: sku: .+; lines\.0\.price: /),
      instance: '/orders',
      issues: [
        { path: ['sku'], message: expect.any(String) },
        { path: ['lines', 0, 'price'], message: expect.any(String) },
      ],
    });
    expect(body).not.toHaveProperty('code');
  });

  test("a zod/mini error ($ZodError) is recognised by zod's own check; an error merely named ZodError is not", () => {
    let thrown: unknown;
    try {
      zm.parse(zm.object({ sku: zm.string() }), {});
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).name).toBe('$ZodError');
    expect(problemOf(thrown, {})).toMatchObject({ status: 400, body: { issues: [{ path: ['sku'] }] } });
    const impostor = Object.assign(new Error('password=hunter2'), { name: 'ZodError', issues: [{ path: ['password'], message: 'hunter2' }] });
    expect(problemOf(impostor, {})).toEqual({ status: 500, body: { type: 'about:blank', title: 'Internal Server Error', status: 500 } });
  });

  test("Fastify's schema validation is a 400 with the paths of its JSON pointers and missing properties", () => {
    const error = Object.assign(new Error('body/price must be number'), {
      statusCode: 400,
      validation: [
        { instancePath: '/lines/0/price', message: 'must be number' },
        { instancePath: '', message: "must have required property 'sku'", params: { missingProperty: 'sku' } },
      ],
    });
    const { status, body } = problemOf(error, {});
    expect(status).toBe(400);
    expect(body).not.toHaveProperty('code');
    expect(body.issues).toEqual([
      { path: ['lines', 0, 'price'], message: 'must be number' },
      { path: ['sku'], message: "must have required property 'sku'" },
    ]);
  });

  test('another 4xx keeps its status and message; anything else is a 500 that tells nothing', () => {
    const unparsable = Object.assign(new SyntaxError('Unexpected token } in JSON'), { status: 400, type: 'entity.parse.failed' });
    expect(problemOf(unparsable, {})).toEqual({
      status: 400,
      body: { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'Unexpected token } in JSON' },
    });
    const secret = new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2');
    expect(problemOf(secret, { instance: '/x' })).toEqual({
      status: 500,
      body: { type: 'about:blank', title: 'Internal Server Error', status: 500, instance: '/x' },
    });
    expect(problemOf(Object.assign(new Error('upstream'), { statusCode: 502 }), {}).status).toBe(500);
    expect(problemOf('a string', {}).status).toBe(500);
  });
});

describe('ETag and If-Match', () => {
  test('a version is a strong ETag, and If-Match gives it back as the expected version', () => {
    expect(etagOf(3)).toBe('"3"');
    expect(expectedVersionOf(etagOf(3))).toBe(3);
    expect(expectedVersionOf(' "0" ')).toBe(0);
    expect(expectedVersionOf(undefined)).toBeUndefined();
    expect(expectedVersionOf('*')).toBeUndefined();
    expect(expectedVersionOf('"12345678901"')).toBe(12345678901);
    expect(expectedVersionOf('"123456789012345678901234567890"')).toBe(Number.MAX_SAFE_INTEGER);
  });

  test.each(['W/"3"', '"1", "2"', '3', '"x"', '""'])('If-Match %s is a ValidationError (400)', (header) => {
    expect(() => expectedVersionOf(header)).toThrow(ValidationError);
  });
});
