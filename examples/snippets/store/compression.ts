import { EventStream } from 'dynafold';
import { client, OrderEvents } from './model';

const table = 'events';
const name = 'Order';
const streamId = ['orderId'] as const;
const { events } = OrderEvents;

export const streams = [
  // #region compression
  new EventStream({
    client,
    table,
    name,
    streamId,
    events,
    compression: { algorithm: 'brotli', thresholdBytes: 16_384 },
  }),
  new EventStream({
    client,
    table,
    name,
    streamId,
    events,
    compression: false,
  }), // always a plain map
  // #endregion compression
];
