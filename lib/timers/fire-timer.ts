import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { asRequestError, cancellationCodes, landedDespite, newWriteId, withSignal, type OwnItem } from '../dynamo';
import type { TransactPut } from '../store';
import { backoffDelay, mayRetry, sleep, type ResolvedRetry } from '../util';
import type { DynamoTimers } from './dynamo-timers';
import { expiry, timerItemKey, TimerLayout, type DueTimer, type ScheduledTimer, type TimerKey, type TimerState } from './timer-layout';
import { TimerDefaults } from './defaults';
import { Attr, inSpan, type SpanSpec } from '../telemetry';

/** What fires a due timer: the reaction or workflow that scheduled it, known to the sweep by its name. */
export interface TimerOwner {
  readonly name: string;
  /**
   * Plans what a due timer's firing writes: the Puts of its effects (a workflow's recorded input and outputs,
   * a reaction's commands), which go into one transaction with the timer's record, and the timers those
   * effects schedule or cancel. Runs again after a lost race, so it only reads. A throw leaves the timer due.
   */
  planFiring(timer: DueTimer, signal: AbortSignal | undefined): Promise<FiringPlan>;
}

/** What a timer's firing writes beside the timer's record. */
export interface FiringPlan {
  readonly puts: ReadonlyArray<TransactPut>;
  /** The timers its effects schedule, told to the timers once the firing landed (an adapter wakes them). */
  readonly scheduled: ReadonlyArray<ScheduledTimer>;
  /** The timers its effects cancel. */
  readonly dropped: ReadonlyArray<TimerKey>;
}

/**
 * How a firing ended: `fired` (by this call), `gone` (fired, cancelled or scheduled again before: nothing
 * to do), `early` (not due yet by the clock: left for later), `contended` (its writes lost every race for
 * its tries: it stays due, for the next sweep).
 */
export type FiringOutcome = 'fired' | 'gone' | 'early' | 'contended';

/**
 * Fires a due timer: its owner plans the effects, and ONE transaction writes them with the timer's record,
 * conditioned on the timer being still the one scheduled (its id), not yet fired, and due by the clock. So
 * a timer fired twice at once, or again later, has its firing recorded once, and never before its time. A
 * lost race of the effects (a stream moved since its load) plans them again, with backoff; a firing whose
 * answer was lost knows its own by the id it leaves on the record. Once it landed, the timers the effects
 * scheduled and cancelled are told to `timers` (an adapter's wake-ups), and so is this one, fired.
 */
export async function fireTimer(
  timers: DynamoTimers,
  owner: TimerOwner,
  timer: DueTimer,
  options: { readonly signal?: AbortSignal | undefined; readonly retry?: ResolvedRetry | undefined } = {},
): Promise<FiringOutcome> {
  return inSpan(fireSpan(owner.name, timer), async (span) => {
    // The span that scheduled the timer: its firing follows from it, across however long it waited.
    if (span.recording)
      span.link([{ streamName: timer.owner, streamId: timer.scope === '' ? timer.name : timer.scope, version: 0, trace: timer.trace }]);
    const outcome = await fireOnce(timers, owner, timer, options);
    span.set({ [Attr.timerOutcome]: outcome });
    return outcome;
  });
}

/** The span of a timer's firing (`fire <owner>`): its effects' commits store its context. */
function fireSpan(owner: string, timer: DueTimer): SpanSpec {
  return {
    name: `fire ${owner}`,
    kind: 'internal',
    attributes: { [Attr.projection]: owner, [Attr.streamId]: timer.scope === '' ? undefined : timer.scope, [Attr.timerName]: timer.name },
  };
}

async function fireOnce(
  timers: DynamoTimers,
  owner: TimerOwner,
  timer: DueTimer,
  options: { readonly signal?: AbortSignal | undefined; readonly retry?: ResolvedRetry | undefined },
): Promise<FiringOutcome> {
  const { signal } = options;
  const retry = options.retry ?? { ...TimerDefaults.retry, maxElapsedMs: Infinity };
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const now = timers.clock.now();
    if (timer.at > now) return 'early';
    const plan = await owner.planFiring(timer, signal);
    const outcome = await sendFiring(timers, timer, plan, now, signal);
    if (outcome === 'fired') {
      await timers.scheduled(plan.scheduled, signal);
      await timers.dropped([...plan.dropped, ...(plan.scheduled.some((next) => sameKey(next, timer)) ? [] : [timer])], signal);
    }
    if (outcome !== 'lost') return outcome;
    if (!mayRetry(retry, attempt, Date.now() - started)) return 'contended';
    await sleep(backoffDelay(attempt - 1, retry.backoff), signal);
  }
}

/** The firing's transaction: the timer's record, then the effects. `lost`: an effect's condition failed, or a concurrent transaction. */
async function sendFiring(
  timers: DynamoTimers,
  timer: DueTimer,
  plan: FiringPlan,
  now: number,
  signal: AbortSignal | undefined,
): Promise<'fired' | 'gone' | 'lost'> {
  const firing = newWriteId();
  const { record, effects, own } = recordOf(timers, timer, plan.puts, firing, now);
  const documents = withSignal(timers.documents, signal);
  try {
    await documents.send(new TransactWriteCommand({ TransactItems: [record, ...effects.map((put) => ({ Put: put }))] }));
    return 'fired';
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes !== undefined) {
      // The timer is no longer the one scheduled, or fired already: its firing is recorded, once.
      if (codes[0] === 'ConditionalCheckFailed') return 'gone';
      if (codes.includes('ConditionalCheckFailed') || codes.includes('TransactionConflict')) return 'lost';
    } else if (await landedDespite(error, own)) {
      return 'fired';
    }
    throw asRequestError('TransactWriteItems', [timers.table, ...effects.flatMap((put) => put.TableName ?? [])], error);
  }
}

/**
 * The timer's record in the firing's transaction: an Update that marks it fired (out of the due-time
 * index, kept until TTL deletes it), or, when the effects schedule the same timer again, their Put of it;
 * either conditioned on the timer being the one scheduled, not fired, and due. How the firing knows its own.
 */
function recordOf(timers: DynamoTimers, timer: DueTimer, puts: ReadonlyArray<TransactPut>, firing: string, now: number) {
  const key = timerItemKey(timer);
  const again = puts.find((put) => put.TableName === timers.table && sameItemKey(put.Item, key));
  const names = { '#state': TimerLayout.state, '#id': TimerLayout.id, '#at': TimerLayout.at };
  const values = { ':scheduled': 'scheduled' satisfies TimerState, ':id': timer.id, ':now': now };
  const condition = { ConditionExpression: '#state = :scheduled AND #id = :id AND #at <= :now', ExpressionAttributeNames: names };
  const read = () => timers.item(timer);
  if (again !== undefined) {
    const id = again.Item?.[TimerLayout.id];
    const own: OwnItem = { isOwn: (item) => item[TimerLayout.id] === id, read };
    return {
      record: { Put: { ...again, ...condition, ExpressionAttributeValues: values } },
      effects: puts.filter((put) => put !== again),
      own,
    };
  }
  const own: OwnItem = { isOwn: (item) => item[TimerLayout.firing] === firing, read };
  return {
    record: {
      Update: {
        TableName: timers.table,
        Key: key,
        UpdateExpression: 'SET #state = :fired, #firing = :firing, #firedAt = :firedAt, #ttl = :ttl REMOVE #shard, #due',
        ...condition,
        ExpressionAttributeNames: {
          ...names,
          '#firing': TimerLayout.firing,
          '#firedAt': TimerLayout.firedAt,
          '#ttl': TimerDefaults.ttlAttribute,
          '#shard': TimerLayout.dueShard,
          '#due': TimerLayout.due,
        },
        ExpressionAttributeValues: {
          ...values,
          ':fired': 'fired' satisfies TimerState,
          ':firing': firing,
          ':firedAt': new Date(now).toISOString(),
          ':ttl': expiry(now),
        },
      },
    },
    effects: puts,
    own,
  };
}

function sameItemKey(item: Readonly<Record<string, unknown>> | undefined, key: Readonly<Record<string, string>>): boolean {
  return item !== undefined && Object.entries(key).every(([attribute, value]) => item[attribute] === value);
}

function sameKey(a: TimerKey, b: TimerKey): boolean {
  return a.owner === b.owner && a.scope === b.scope && a.name === b.name;
}
