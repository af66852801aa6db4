import Fastify from 'fastify';
import { OrderEvents } from './model';

export async function shipAnOrder(): Promise<void> {
  // #region catch
  try {
    await OrderEvents.append(
      'o-1',
      [{ type: 'OrderShipped', data: {} }],
      { expectedVersion: 3 },
    );
  } catch (error) {
    if (DynafoldError.is(error, 'store.concurrency'))
      console.log(
        error.code,
        error.expectedVersion,
        error.actualVersion,
      );
    else throw error;
  }
  // #endregion catch
}

// #region problem-details
import { DynafoldError } from 'dynafold';
import { etagOf, expectedVersionOf } from 'dynafold/fastify';

const app = Fastify();
app.setErrorHandler((error, request, reply) => {
  if (!DynafoldError.is(error)) return reply.send(error);
  const problem = error.toProblem({
    instance: request.url,
    precondition: request.headers['if-match'] !== undefined,
  });
  return reply
    .code(problem.status)
    .type('application/problem+json')
    .send(problem);
});

app.post<{ Params: { id: string } }>(
  '/orders/:id/ship',
  async (request, reply) => {
    const expectedVersion = expectedVersionOf(
      request.headers['if-match'],
    ); // the ETag a GET returned: '"3"' → 3
    const { version } = await OrderEvents.append(
      request.params.id,
      [{ type: 'OrderShipped', data: {} }],
      { expectedVersion },
    );
    return reply.header('etag', etagOf(version)).code(204).send();
  },
);
// #endregion problem-details
