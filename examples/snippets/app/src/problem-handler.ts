// Problem Details from a Fastify error handler of your own, as the
// dynafold/fastify plugin installs one (with `problems: false`, say).
import { DynafoldError } from 'dynafold';
import type { FastifyInstance } from 'fastify';

export function problemDetails(app: FastifyInstance): void {
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
}
