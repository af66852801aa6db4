import { DynafoldError, type ErrorOptions } from './dynafold-error';

/**
 * Personal data was to be stored for a subject that was forgotten: its key is deleted and a marker stops a
 * new one from being made, so nothing was written. Personal data of a forgotten subject is never stored
 * again; ask the caller for another subject, or leave the personal fields out of the event.
 */
export class SubjectForgottenError extends DynafoldError {
  constructor(
    readonly subject: string,
    /** When the subject was forgotten (ISO 8601). */
    readonly forgottenAt: string,
    options?: ErrorOptions,
  ) {
    super(
      'erasure.subjectForgotten',
      `Subject "${subject}" was forgotten at ${forgottenAt}: personal data of a forgotten subject is never stored again, and nothing was written. ` +
        'Use another subject id for a new person, or leave out the personal fields.',
      options,
    );
  }
}

/**
 * A stored event (or snapshot, or outbox message) holds personal data sealed for a subject whose key the
 * key table does not hold, and the subject was never forgotten: the key table was changed by hand, another
 * table is configured, or keys were lost. The data can't be read and is not redacted silently.
 */
export class SubjectKeyMissingError extends DynafoldError {
  constructor(
    readonly subject: string,
    /** The key table that was read. */
    readonly table: string,
    /** Where the sealed data is (an event, a snapshot, an outbox message). */
    readonly where: string,
    options?: ErrorOptions,
  ) {
    super(
      'erasure.keyMissing',
      `${where} holds personal data of subject "${subject}", whose key table ${table} has no key for it and no record that it was forgotten: ` +
        'check that the stream is configured with the key table its events were written with, or restore the table.',
      options,
    );
  }
}

/**
 * A decode that can't wait (a `decoder()`'s function) met personal data of a subject whose key this process
 * has not loaded. Load the keys of a batch first (`decode.loadKeys(images)`, which reads them all in one
 * request), then decode it; every reader of the library does so itself.
 */
export class SubjectKeyNotLoadedError extends DynafoldError {
  constructor(
    readonly subject: string,
    /** Where the sealed data is. */
    readonly where: string,
    options?: ErrorOptions,
  ) {
    super(
      'erasure.keyNotLoaded',
      `${where} holds personal data of subject "${subject}", whose key was not loaded: call \`await decode.loadKeys(images)\` ` +
        "with the batch's images before decoding them (it reads their subjects' keys in one request).",
      options,
    );
  }
}

/**
 * Sealed personal data failed authentication (AES-256-GCM): it was changed or corrupted after it was
 * written, or sealed for another place. It is never decrypted into garbage; restore the item from a backup.
 */
export class PersonalDataTamperedError extends DynafoldError {
  constructor(
    /** Where the sealed data is, and which of its values failed. */
    readonly where: string,
    readonly subject: string,
    options?: ErrorOptions,
  ) {
    super(
      'erasure.tampered',
      `${where}: the personal data sealed for subject "${subject}" fails authentication, so it was changed after it was written ` +
        '(or copied from another item). Nothing was decrypted; restore the item from a backup.',
      options,
    );
  }
}

/**
 * The key provider failed to make or unwrap a subject's data key (KMS refused or throttled the request, or a
 * wrapped key does not unwrap with the provider's key). `cause` holds what it said; `advice`, when given,
 * what to do instead of the general advice (a local key that is not the one that wrapped the data key).
 */
export class KeyProviderError extends DynafoldError {
  constructor(
    readonly operation: string,
    readonly subject: string,
    options?: ErrorOptions & { readonly advice?: string | undefined },
  ) {
    const said = options?.cause instanceof Error ? `${options.cause.name}: ${options.cause.message}` : String(options?.cause);
    const advice =
      options?.advice ?? "check the provider's key and its permissions (kms:GenerateDataKey and kms:Decrypt for KMS); throttling passes by itself.";
    super('erasure.keyProvider', `The key provider failed to ${operation} the data key of subject "${subject}" (${said}): ${advice}`, options);
  }
}
