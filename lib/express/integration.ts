import type { Server } from 'node:http';
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import type { ProjectionSet } from '../outcome';
import type { AnyEventStream } from '../store';
import type { ReadModel } from '../read-model';
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
import type { Logger } from '../util';

/** Options of {@link dynafold} for Express: the service's options, and where the feed logs. */
export type DynafoldExpressOptions<
  Streams extends Record<string, AnyEventStream> = Record<string, AnyEventStream>,
  Models extends Record<string, ReadModel> = Record<string, ReadModel>,
  Projections extends ProjectionSet = ProjectionSet,
> = Omit<ServiceOptions<Streams, Models, Projections>, 'problems'> & {
  /** Receives the feed's diagnostics and the errors of failed requests. @defaultValue none */
  readonly logger?: Logger | undefined;
};

/** What {@link dynafold} returns: the services (also at `app.locals.dynafold`) and how to stop the feed. */
export interface DynafoldExpress<
  Streams extends Record<string, AnyEventStream> = Record<string, AnyEventStream>,
  Models extends Record<string, ReadModel> = Record<string, ReadModel>,
  Projections extends ProjectionSet = ProjectionSet,
> {
  readonly services: DynafoldServices<Streams, Models, Projections>;
  /** Starts the change feed, if one is configured; `dynafold()` already did unless `start: false`. */
  start(): Promise<void>;
  /** Stops the change feed (releasing its lease) and waits for its run to end. */
  close(): Promise<void>;
  /** Stops the feed when `server` closes (`server.close()` on SIGTERM, say). Returns `server`. */
  closeWith<S extends Server>(server: S): S;
}

/** The logger each app was registered with, for its `problemHandler`. */
const appLoggers = new WeakMap<object, Logger>();

/**
 * Registers dynafold with an Express app: `app.locals.dynafold` holds the streams, read models,
 * projections and `health()`; `healthPath` serves the health (200, or 503 once the feed failed); a
 * configured change feed starts at once and stops on `close()` or when the server given to `closeWith`
 * closes. Mount {@link problemHandler} after your routes to answer errors as Problem Details.
 *
 * @example
 * ```ts
 * const app = express()
 * const service = dynafold(app, { streams: { orders: OrderEvents }, healthPath: '/health', feed })
 * app.post('/orders/:id/items', express.json(), async (req, res) => { ... })
 * app.use(problemHandler())
 * service.closeWith(app.listen(3000))
 * ```
 */
export function dynafold<Streams extends Record<string, AnyEventStream>, Models extends Record<string, ReadModel>, Projections extends ProjectionSet>(
  app: Express,
  options: DynafoldExpressOptions<Streams, Models, Projections> & { readonly start?: boolean | undefined },
): DynafoldExpress<Streams, Models, Projections> {
  const { services, feed } = resolveServices(options, options.logger);
  if (options.logger !== undefined) appLoggers.set(app, options.logger);
  app.locals['dynafold'] = services;
  if (options.healthPath !== undefined) {
    app.get(options.healthPath, (_request, response) => {
      const health = services.health();
      response.status(health.healthy ? 200 : 503).json(health);
    });
  }
  let started: Promise<void> | undefined;
  const start = () => (started ??= feed?.start() ?? Promise.resolve());
  if (options.start !== false) {
    // A failed start is reported by health(); the caller can also await start() itself.
    start().catch(() => undefined);
  }
  const close = async () => {
    await feed?.stop();
  };
  return {
    services: services as DynafoldServices<Streams, Models, Projections>,
    start,
    close,
    closeWith: (server) => server.once('close', () => void close()),
  };
}

/**
 * Express error middleware answering RFC 9457 Problem Details: a `DynafoldError` with its status (a
 * conflict is 409, or 412 when the request carried `If-Match`), a zod error 400 with the field paths, a
 * body parser's 4xx as it is, anything else a 500 that leaks nothing; a 5xx never carries the error's
 * message or payload, which are logged instead (to `logger`, else the logger given to {@link dynafold}, else
 * `console.error` as one JSON line). Mount it after the routes.
 *
 * @example
 * ```ts
 * app.use(problemHandler({ typeBase: 'https://example.com/problems/' }))
 * ```
 */
export function problemHandler(
  options: ProblemOptions & {
    /** Receives the errors answered with a 5xx. @defaultValue the logger given to `dynafold(app)`, else `console.error` */
    readonly logger?: Logger | undefined;
  } = {},
): ErrorRequestHandler {
  return (error: unknown, request, response, next) => {
    // Headers already sent: only Express itself can end the response now.
    if (response.headersSent) return next(error);
    const { status, body } = problemOf(error, { instance: request.originalUrl, precondition: hasPrecondition(request.headers) }, options);
    if (status >= 500) {
      const logger = options.logger ?? appLoggers.get(request.app);
      logRequestFailure(logger, error, { method: request.method, url: request.originalUrl, status });
    }
    response.status(status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  };
}

/**
 * Express middleware answering a request no route served with 404 Problem Details (Express's own answer is
 * an HTML page). Mount it after the routes, before {@link problemHandler}.
 *
 * @example
 * ```ts
 * app.use(notFoundHandler())
 * app.use(problemHandler())
 * ```
 */
export function notFoundHandler(): RequestHandler {
  return (request, response) => {
    const { status, body } = notFoundProblem({ method: request.method, instance: request.originalUrl });
    response.status(status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  };
}
