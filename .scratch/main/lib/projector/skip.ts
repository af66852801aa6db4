/**
 * Returned by `evolve` to leave the row alone for this event: nothing is written for it, and when no
 * later event of the call moves the checkpoint past it, it is decided again on a later delivery.
 */
export const skipEvent: unique symbol = Symbol.for('dynafold.skipEvent');
export type SkipEvent = typeof skipEvent;

/**
 * Returned by `evolve` to remove the row. It stays as a tombstone with its checkpoint (rows are never
 * deleted, so a redelivered event can't recreate it); reads hide it. Later events recreate it only when
 * the projection's `recreate` says so.
 */
export const removeRow: unique symbol = Symbol.for('dynafold.removeRow');
export type RemoveRow = typeof removeRow;
