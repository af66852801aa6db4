import { ConcurrencyError } from 'dynafold';
import { clients, type Endpoint } from './local';
import { newEvents, orderTables, type OrderStream } from './orders';
import { sleep } from './stats';

/** How a fill writes its events: `total` events, `perStream` per order, `perAppend` per append, by `writers` at once. */
export interface FillShape {
  readonly total: number;
  readonly perStream: number;
  readonly perAppend: number;
  readonly writers: number;
}

/**
 * One fill append. DynamoDB Local serialises transactions behind a lock and, on a loaded machine, answers
 * InternalServerError ("too long waiting for a lock") where AWS would not: wait and try again.
 */
async function appendRetrying(stream: OrderStream, orderId: string, version: number, count: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await stream.append({ orderId }, newEvents(version + 1, count), { expectedVersion: version });
      return;
    } catch (error) {
      if (error instanceof ConcurrencyError && (await stream.version({ orderId })) === version + count) return; // the timed-out try committed
      const cause = (error as { cause?: unknown }).cause;
      if (attempt >= 20 || !(cause instanceof Error) || cause.name !== 'InternalServerError') throw error;
      await sleep(50 * (attempt + 1));
    }
  }
}

/** Fills fresh order tables (events with a stream, views) as `shape` says; resolves them and the fill time. */
export async function fill(endpoint: Endpoint, shape: FillShape, prefix: string) {
  const c = clients(endpoint);
  try {
    const tables = await orderTables(c.client, prefix);
    const streams = shape.total / shape.perStream;
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: shape.writers }, async () => {
        for (let s = next++; s < streams; s = next++) {
          for (let version = 0; version < shape.perStream; version += shape.perAppend) {
            await appendRetrying(tables.stream, `${prefix}-${s}`, version, Math.min(shape.perAppend, shape.perStream - version));
          }
        }
      }),
    );
    return { ...tables, fillMs: performance.now() - start };
  } finally {
    c.destroy();
  }
}
