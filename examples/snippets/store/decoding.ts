import type { DynamoDBRecord } from 'aws-lambda';
import { OrderEvents, PaymentEvents } from './model';

// #region decode
import { decoder } from 'dynafold';

const decode = decoder({ Order: OrderEvents, Payment: PaymentEvents });

export function logOrderEvents(record: DynamoDBRecord): void {
  // A record is one append: { stream: 'Order', events } | undefined
  const decoded = decode(record.dynamodb?.NewImage);
  if (decoded?.stream !== 'Order') return;
  for (const event of decoded.events) {
    console.log(event.version, event.type);
  }
}
// #endregion decode
