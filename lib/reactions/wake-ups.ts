import type { ApplyResult, Entry } from '../outcome';
import { instanceKey, type StreamEvent } from '../store';
import type { DynamoTimers, ScheduledTimer, TimerKey } from '../timers';
import { log, type Logger } from '../util';

/** Events whose planned timers are remembered at most: past it, the oldest are forgotten (their timers fire by the sweep). */
const REMEMBERED_EVENTS = 10_000;

/**
 * The timers each event's effects planned to schedule and cancel, kept until the call that wrote them
 * tells its `timers` (an adapter that wakes each timer at its time arranges it then, once the write
 * landed). What a call does not tell (a plan whose write lost, a process that stopped in between) the
 * sweep finds: a wake-up only makes a timer fire sooner.
 */
export class WakeUps {
  private readonly byEvent = new Map<string, { scheduled: ReadonlyArray<ScheduledTimer>; dropped: ReadonlyArray<TimerKey> }>();

  constructor(
    private readonly timers: DynamoTimers | undefined,
    private readonly logger: Logger | undefined,
  ) {}

  /** Remembers what the latest plan of `event`'s effects schedules and cancels (a plan again replaces it). */
  note(event: StreamEvent, scheduled: ReadonlyArray<ScheduledTimer>, dropped: ReadonlyArray<TimerKey>): void {
    if (this.timers === undefined) return;
    const id = eventId(event);
    this.byEvent.delete(id);
    if (scheduled.length === 0 && dropped.length === 0) return;
    if (this.byEvent.size >= REMEMBERED_EVENTS) this.byEvent.delete(this.byEvent.keys().next().value as string);
    this.byEvent.set(id, { scheduled, dropped });
  }

  /** Tells the timers what the events a call applied scheduled and cancelled, and forgets the call's events. Never rejects. */
  async after(
    entries: ReadonlyArray<Entry<StreamEvent>>,
    result: ApplyResult<StreamEvent, unknown, { readonly applied: ReadonlyArray<StreamEvent> }>,
  ) {
    if (this.timers === undefined || this.byEvent.size === 0) return;
    const scheduled: ScheduledTimer[] = [];
    const dropped: TimerKey[] = [];
    for (const outcome of result.outcomes) {
      for (const event of outcome.applied) {
        const noted = this.byEvent.get(eventId(event));
        if (noted === undefined) continue;
        scheduled.push(...noted.scheduled);
        dropped.push(...noted.dropped);
        this.byEvent.delete(eventId(event));
      }
    }
    for (const { event } of entries) this.byEvent.delete(eventId(event));
    try {
      if (dropped.length > 0) await this.timers.dropped(dropped);
      if (scheduled.length > 0) await this.timers.scheduled(scheduled);
    } catch (error) {
      log(this.logger, 'warn', { error }, 'The wake-ups of timers could not be arranged; the sweep fires them.');
    }
  }
}

function eventId(event: StreamEvent): string {
  return `${instanceKey(event)}@${event.version}`;
}
