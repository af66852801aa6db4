import { DynafoldError, type ErrorOptions } from './dynafold-error';
import type { ErrorCode } from './catalogue';

/** Where a stored event is that a stream's definition could not bring to today's shape. */
export interface StoredEventRef {
  readonly streamName: string;
  readonly streamId: string;
  /** The event's version in its stream. */
  readonly version: number;
  /** The type the event was stored under (an alias, for a renamed type). */
  readonly type: string;
  /** The version of its type it was stored at. */
  readonly storedVersion: number;
}

/**
 * What the errors about one stored event that a definition could not read have in common: they name it.
 * Not exported by the package (its subclasses are, each with its code).
 */
export abstract class StoredEventError extends DynafoldError implements StoredEventRef {
  readonly streamName: string;
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly storedVersion: number;

  protected constructor(code: ErrorCode, event: StoredEventRef, what: string, options?: ErrorOptions) {
    super(
      code,
      `Event ${event.version} of ${event.streamName} "${event.streamId}" (${event.type}, stored at type version ${event.storedVersion})${what}`,
      options,
    );
    this.streamName = event.streamName;
    this.streamId = event.streamId;
    this.version = event.version;
    this.type = event.type;
    this.storedVersion = event.storedVersion;
  }
}
