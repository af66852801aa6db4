import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../util';
import {
  hasPrecondition,
  logRequestFailure,
  notFoundProblem,
  PROBLEM_CONTENT_TYPE,
  problemOf,
  resolveServices,
  type DynafoldServices,
  type ProblemOptions,
  type ServiceOptions,
} from '../http';

/** Options of the {@link dynafold} Fastify plugin: the service's options (see `ServiceOptions`). */
export type DynafoldPluginOptions = ServiceOptions;

declare module 'fastify' {
  interface FastifyInstance {
    /** The streams, read models and projections registered with the dynafold plugin, and the service's health. */
    readonly dynafold: DynafoldServices;
  }
}

/**
 * The Fastify plugin: decorates the app with `app.dynafold` (streams, read models, projections, `health()`),
 * answers errors as RFC 9457 Problem Details (a `DynafoldError` with its status: a conflict is 409, or 412
 * with `If-Match`; a zod error or a schema validation error 400 with the field paths; anything unknown a
 * 500 that leaks nothing; a route that does not exist 404), optionally serves `healthPath`, and runs a change feed while the app runs: it
 * starts when the app is ready and stops, releasing its lease, when the app closes. Registered at the
 * root: it is not encapsulated, so its error handler covers every route.
 *
 * @example
 * ```ts
 * const app = Fastify()
 * await app.register(dynafold, {
 *   streams: { orders: OrderEvents }, readModels: { summaries: OrderSummaries }, healthPath: '/health',
 *   feed: { consumer: { streamsClient, streamArn, checkpoints }, projections: [OrderSummaryProjection] },
 * })
 * app.get('/orders/:id', (request) => app.dynafold.readModels.summaries.get({ orderId: request.params.id }))
 * ```
 */
export const dynafold: FastifyPluginAsync<DynafoldPluginOptions> = async (app, options) => {
  const { services, feed } = resolveServices(options, app.log);
  app.decorate('dynafold', services);
  if (options.problems !== false) {
    app.setErrorHandler(problemHandler(options.problems ?? {}));
    app.setNotFoundHandler((request, reply) => {
      const { status, body } = notFoundProblem({ method: request.method, instance: request.url });
      return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(body);
    });
  }
  if (options.healthPath !== undefined) {
    app.get(options.healthPath, async (_request, reply) => {
      const health = services.health();
      return reply.code(health.healthy ? 200 : 503).send(health);
    });
  }
  if (feed !== undefined) {
    app.addHook('onReady', () => feed.start());
    app.addHook('onClose', () => feed.stop());
  }
};

// What `fastify-plugin` would set, without depending on it: no encapsulation, and a name in errors.
Object.assign(dynafold, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'dynafold' });

/** Fastify's error handler answering Problem Details (see {@link dynafold}). */
export function problemHandler(
  options: ProblemOptions = {},
): (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return function handle(error, request, reply) {
    const { status, body } = problemOf(error, { instance: request.url, precondition: hasPrecondition(request.headers) }, options);
    if (status >= 500) logRequestFailure(configuredLogger(request.log), error, { method: request.method, url: request.url, status });
    return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(body);
  };
}

/**
 * The app's logger, unless it has none: `Fastify()` without `logger` gets a logger that drops everything
 * (it has no `level`, which pino and its likes always have), and then a failure goes to the console.
 */
function configuredLogger(logger: FastifyRequest['log']): Logger | undefined {
  return typeof (logger as { level?: unknown }).level === 'string' ? logger : undefined;
}
