import { TransactionLimitError } from '../errors';
import { TransactionLimits } from '../dynamo';
import type { ExtraPut, MessageBatch, RowMessages } from '../projector';
import type { StreamEvent, TransactPut } from '../store';
import type { ProgressState } from './progress';
import type { TransactionPlan } from './transaction-plan';

/** A transaction's room for effects beside the progress row: its other items, and bytes past the row's 400 KB. */
const EFFECT_ITEMS = TransactionLimits.items - 1;
const EFFECT_BYTES = TransactionLimits.transactionBytes - TransactionLimits.itemBytes;

/**
 * A reaction's effects as the row engine writes them: in each progress row's transaction, as a projection's
 * outbox messages are (the engine's `RowMessages` port). Each event's fold planned its effects onto the
 * plan of the events before it in the write (`ProgressState.plan`); a batch takes the plan of every event
 * it accepts, and refuses the event whose effects would take the transaction past DynamoDB's limits, which
 * then starts the next write.
 */
export class ReactionEffects implements RowMessages {
  constructor(private readonly reaction: string) {}

  batch(): MessageBatch {
    return new EffectBatch(this.reaction);
  }
}

class EffectBatch implements MessageBatch {
  private plan: TransactionPlan | undefined;
  private accepted = false;

  constructor(private readonly reaction: string) {}

  accept(event: StreamEvent, state: unknown): boolean {
    const plan = (state as ProgressState | undefined)?.plan;
    if (plan !== undefined && plan !== this.plan) {
      const { items, bytes } = plan.size();
      if (items > EFFECT_ITEMS || bytes > EFFECT_BYTES) {
        if (this.accepted) return false;
        throw new TransactionLimitError(
          `Reaction ${this.reaction}: the effects of ${event.streamName} ${event.streamId} version ${event.version} take ${items} ` +
            `items and ${Math.ceil(bytes / 1024)} KB; one transaction holds ${EFFECT_ITEMS} items and ${Math.floor(EFFECT_BYTES / 1024)} KB ` +
            'beside the progress row. Split them over several events.',
          items > EFFECT_ITEMS ? 'items' : 'transactionSize',
        );
      }
      this.plan = plan;
    }
    this.accepted = true;
    return true;
  }

  get puts(): ReadonlyArray<ExtraPut> {
    return (this.plan?.puts ?? []).map(extraPut);
  }
}

/** A planned Put as the engine's write path takes it. */
function extraPut(put: TransactPut): ExtraPut {
  const condition =
    put.ConditionExpression === undefined
      ? undefined
      : {
          expression: put.ConditionExpression,
          ...(put.ExpressionAttributeNames === undefined ? {} : { names: put.ExpressionAttributeNames }),
          ...(put.ExpressionAttributeValues === undefined ? {} : { values: put.ExpressionAttributeValues }),
        };
  return { table: put.TableName as string, item: put.Item ?? {}, ...(condition === undefined ? {} : { condition }) };
}
