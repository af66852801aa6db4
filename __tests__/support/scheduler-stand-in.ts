import { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { Clock } from 'dynafold/reactions';

/** A one-time schedule as the stand-in keeps it. */
export interface StoodInSchedule {
  readonly name: string;
  readonly group: string;
  readonly expression: string;
  readonly timezone: string | undefined;
  readonly actionAfterCompletion: string | undefined;
  readonly flexibleWindow: string | undefined;
  readonly target: { readonly Arn: string; readonly RoleArn: string; readonly Input: string };
}

interface Request {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string | string[] | null> | undefined;
  readonly body?: unknown;
}

/**
 * A real `SchedulerClient` whose requests are answered in this process, before they are sent: EventBridge
 * Scheduler has no local emulator, so a middleware placed after the client's serialisation and signing (and
 * inside its deserialiser) reads each REST-JSON request as the service would and answers it as the service
 * does (201/200 with a body, a 409 ConflictException for a name taken, a 404 ResourceNotFoundException for
 * one missing), and the client parses that answer as it parses the service's. It keeps the schedules, runs
 * the one-time ones due by `clock` (invoking `invoke` with their input, then deleting those set to
 * DELETE after completion), and can be told to throttle.
 */
export function schedulerStandIn(clock: Clock) {
  const schedules = new Map<string, StoodInSchedule>();
  const calls: string[] = [];
  let throttled = 0;
  const client = new SchedulerClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'stand-in', secretAccessKey: 'stand-in' },
    maxAttempts: 1,
  });
  const answer = (statusCode: number, body: unknown, errorType?: string) => ({
    response: {
      statusCode,
      headers: { 'content-type': 'application/json', ...(errorType === undefined ? {} : { 'x-amzn-errortype': errorType }) },
      body: Buffer.from(JSON.stringify(body)),
    },
  });
  const handle = (request: Request) => {
    const name = decodeURIComponent(request.path.replace(/^\/schedules\//, ''));
    const text =
      typeof request.body === 'string' ? request.body : request.body === undefined ? '{}' : new TextDecoder().decode(request.body as Uint8Array);
    const body = JSON.parse(text === '' ? '{}' : text) as Record<string, unknown>;
    const group = String(body['GroupName'] ?? request.query?.['groupName'] ?? 'default');
    const key = `${group}/${name}`;
    calls.push(`${request.method} ${name}`);
    if (throttled > 0) {
      throttled--;
      return answer(429, { Message: 'Rate exceeded' }, 'ThrottlingException');
    }
    if (request.method === 'POST' || request.method === 'PUT') {
      if (request.method === 'POST' && schedules.has(key)) return answer(409, { Message: `Schedule ${name} already exists.` }, 'ConflictException');
      if (request.method === 'PUT' && !schedules.has(key))
        return answer(404, { Message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
      schedules.set(key, {
        name,
        group,
        expression: String(body['ScheduleExpression']),
        timezone: body['ScheduleExpressionTimezone'] as string | undefined,
        actionAfterCompletion: body['ActionAfterCompletion'] as string | undefined,
        flexibleWindow: (body['FlexibleTimeWindow'] as { Mode?: string } | undefined)?.Mode,
        target: body['Target'] as StoodInSchedule['target'],
      });
      return answer(200, { ScheduleArn: `arn:aws:scheduler:us-east-1:111122223333:schedule/${group}/${name}` });
    }
    if (request.method === 'DELETE') {
      if (!schedules.delete(key)) return answer(404, { Message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
      return answer(200, {});
    }
    return answer(400, { Message: `${request.method} ${request.path}` }, 'ValidationException');
  };
  client.middlewareStack.add((() => async (args: { request: Request }) => handle(args.request)) as never, {
    step: 'deserialize',
    priority: 'low',
    name: 'schedulerStandIn',
  });
  return {
    client,
    schedules,
    calls,
    throttleNext: (count: number) => void (throttled = count),
    /** Runs the schedules due by the clock, as the service would: `invoke` with each one's input, then deletes it. */
    async runDue(invoke: (input: unknown) => Promise<unknown>): Promise<number> {
      const due = [...schedules.entries()].filter(([, schedule]) => atOf(schedule.expression) <= clock.now());
      for (const [key, schedule] of due) {
        if (schedule.actionAfterCompletion === 'DELETE') schedules.delete(key);
        await invoke(JSON.parse(schedule.target.Input));
      }
      return due.length;
    },
  };
}

/** The time of an `at(yyyy-mm-ddThh:mm:ss)` expression, in UTC epoch ms. */
export function atOf(expression: string): number {
  const match = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  if (match === null) throw new Error(`not a one-time schedule: ${expression}`);
  return Date.parse(`${match[1]}Z`);
}
