/*
 * What each sealed value is bound to (AES-GCM's additional data): a value sealed for one place does not
 * open in another, so no ciphertext can be copied between fields, events, snapshots or messages unnoticed.
 */

/** A sealed event field: its stream instance, the type it is stored under, its subject and its name. */
export function fieldContext(partitionKey: string, storedType: string, subject: string, field: string): string {
  return ['dynafold:event', partitionKey, storedType, subject, field].join('\n');
}

/** A sealed snapshot: its stream instance and name. */
export function snapshotContext(partitionKey: string, name: string): string {
  return ['dynafold:snapshot', partitionKey, name].join('\n');
}

/** A sealed outbox message: its row's partition and its place in it. */
export function outboxContext(partition: string, sortKey: string): string {
  return ['dynafold:outbox', partition, sortKey].join('\n');
}
