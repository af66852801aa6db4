import fc from 'fast-check';
import { DynafoldError, DynamoRequestError, ErrorCodes, HttpStatuses, isTransient, type ErrorCode } from 'dynafold';
import { CheckpointStoreError } from 'dynafold/feed';
import { countsTowardsParking } from '../../lib/projector/parking/policy';
import { propertySettings } from '../support/delivery';

/*
 * The transient-error rule: a failure that its documentation calls transient (an error code answering 503
 * Service Unavailable or 504 Gateway Timeout, both "try again later" by their HTTP meaning; an AWS error of
 * throttling, a 5xx or the network, raw or wrapped in a request or key provider error) never counts towards
 * parking a row, whatever the code; every other failure of a row does, but a missing or refused table.
 */

/** The codes whose status says "try again later". */
const LATER = new Set([503, 504]);
/** Codes that wrap an AWS service's answer (DynamoDB's, or the key provider's: KMS), and are as transient as it is. */
const WRAPPERS = new Set<ErrorCode>(['dynamo.request', 'feed.checkpointStore', 'feed.request', 'erasure.keyProvider']);
/** The deployment's fault, never the row's: not counted, nor transient. */
const DEPLOYMENT = new Set<ErrorCode>(['dynamo.tableNotFound', 'dynamo.accessDenied']);

interface SdkFailure {
  readonly name: string;
  readonly status: number;
  readonly network: string | undefined;
}

const TRANSIENT_NAMES = [
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'TimeoutError',
];
const sdkFailures: fc.Arbitrary<SdkFailure> = fc.record({
  name: fc.constantFrom(...TRANSIENT_NAMES, 'ValidationException', 'ConditionalCheckFailedException', 'SerializationException', 'Error'),
  status: fc.constantFrom(400, 403, 500, 502, 503),
  network: fc.constantFrom(undefined, 'ECONNRESET', 'ETIMEDOUT', 'EINVAL'),
});
const sdkError = (failure: SdkFailure): Error =>
  Object.assign(new Error(`${failure.name} (injected)`), {
    name: failure.name,
    $metadata: { httpStatusCode: failure.status },
    ...(failure.network === undefined ? {} : { code: failure.network }),
  });
const sdkTransient = (failure: SdkFailure): boolean =>
  TRANSIENT_NAMES.includes(failure.name) || failure.status >= 500 || failure.network === 'ECONNRESET' || failure.network === 'ETIMEDOUT';

/** A failure a row's fold, gap read, backfill or replay may meet, with what its documentation says of it. */
type Drawn = { readonly error: unknown; readonly transient: boolean; readonly deployment: boolean };
const failures: fc.Arbitrary<Drawn> = fc.oneof(
  // Any dynafold code, as a class raises it or wrapping an SDK error.
  fc.record({ code: fc.constantFrom(...ErrorCodes), cause: sdkFailures }).map(({ code, cause }): Drawn => {
    const error = new DynafoldError(code, `${code} (drawn)`, { cause: sdkError(cause) });
    const transient = LATER.has(HttpStatuses[code]) || (WRAPPERS.has(code) && sdkTransient(cause));
    return { error, transient, deployment: DEPLOYMENT.has(code) };
  }),
  sdkFailures.map((failure): Drawn => ({ error: sdkError(failure), transient: sdkTransient(failure), deployment: false })),
  sdkFailures.map((failure): Drawn => ({
    error: new DynamoRequestError('Query', sdkError(failure)),
    transient: sdkTransient(failure),
    deployment: false,
  })),
  sdkFailures.map((failure): Drawn => ({
    error: new CheckpointStoreError('drawn', { cause: sdkError(failure) }),
    transient: sdkTransient(failure),
    deployment: false,
  })),
  fc.constantFrom<Drawn>(
    { error: new Error('a bug in evolve'), transient: false, deployment: false },
    { error: 'a thrown string', transient: false, deployment: false },
  ),
);

test('a failure documented as transient never counts towards parking a row; any other does, but the deployment’s', () => {
  fc.assert(
    fc.property(failures, ({ error, transient, deployment }) => {
      expect(isTransient(error)).toBe(transient);
      expect(countsTowardsParking(error)).toBe(!transient && !deployment);
    }),
    propertySettings(500),
  );
});

test('every code answering 503 or 504 is transient, and every transient code answers one of them or wraps a request', () => {
  for (const code of ErrorCodes) {
    const error = new DynafoldError(code, code);
    expect([code, isTransient(error)]).toEqual([code, LATER.has(HttpStatuses[code])]);
  }
});
