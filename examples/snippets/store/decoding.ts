import type { DynamoDBRecord } from 'aws-lambda';
import { OrderEvents, PaymentEvents } from './model';

// #region decode
import { decoder } from 'dynafold';

const decode = decoder({ Order: OrderEvents, Payment: PaymentEvents });

export function logOrderEvent(record: DynamoDBRecord): void {
  // { stream: 'Order', event } | undefined
  const decoded = decode(record.dynamodb?.NewImage);
  if (decoded?.stream === 'Order') console.log(decoded.event.type);
}
// #endregion decode
