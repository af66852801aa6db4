/**
 * Returned by `evolve` to leave the row alone for this event: nothing is written for it, and when no
 * later event of the call moves the checkpoint past it, it is decided again on a later delivery.
 */
export const skipEvent: unique symbol = Symbol.for('dynafold.skipEvent');
export type SkipEvent = typeof skipEvent;
