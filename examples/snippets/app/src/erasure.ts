// An erasure request in a service or a Lambda function: the subject is
// forgotten at once, and its rows rebuilt once every process's key
// cache has dropped its key, by a job that runs then (never a timer in
// the process that forgot).
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  customerProfileProjection,
  customerProfiles,
  customerStream,
  subjectKeys,
} from './customers.js';

/** What the job that rebuilds is given. */
export interface RebuildJob {
  readonly customerId: string;
  /** When it may run (ISO 8601): every key cache has dropped the key. */
  readonly notBefore: string;
}

/**
 * Forgets a customer and hands the rebuild to `later`, which runs it at
 * `notBefore`: an SQS message with DelaySeconds (up to 15 minutes; the
 * key cache keeps a key 5), an EventBridge Scheduler schedule, a row of
 * your job table.
 */
export async function eraseCustomer(
  client: DynamoDBClient,
  customerId: string,
  later: (job: RebuildJob) => Promise<void>,
): Promise<void> {
  const keys = subjectKeys(client, 'subject-keys');
  const { settledAt } = await keys.forget(customerId);
  await later({ customerId, notBefore: settledAt });
}

/** The job: the customer's rows, re-derived from its redacted events. */
export async function rebuildErased(
  client: DynamoDBClient,
  job: RebuildJob,
): Promise<number> {
  const keys = subjectKeys(client, 'subject-keys');
  const profiles = customerProfileProjection(
    customerStream(client, 'events', keys),
    customerProfiles(client, 'views'),
  );
  const { rows } = await profiles.rebuild({
    customerId: job.customerId,
  });
  return rows.length;
}
