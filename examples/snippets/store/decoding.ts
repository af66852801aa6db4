import type { DynamoDBRecord } from 'aws-lambda';
import { EventStream } from 'dynafold';
import { z } from 'zod';
import { client, OrderEvents } from './model';

const PaymentEvents = new EventStream({
  client,
  table: 'events',
  name: 'Payment',
  streamId: ['paymentId'],
  events: { PaymentTaken: z.object({ amount: z.number() }) },
});

// #region decode
import { decoder } from 'dynafold';

const decode = decoder({ Order: OrderEvents, Payment: PaymentEvents });

export function logOrderEvent(record: DynamoDBRecord): void {
  const decoded = decode(record.dynamodb?.NewImage); // { stream: 'Order', event } | undefined
  if (decoded?.stream === 'Order') console.log(decoded.event.type);
}
// #endregion decode
