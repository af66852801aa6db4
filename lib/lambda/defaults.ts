/** Defaults of `lambdaHandler` and `kinesisHandler`, in one place. */
export const LambdaHandlerDefaults = {
  /**
   * Time kept in reserve before the invocation's timeout: once only this much is left, no new row starts,
   * requests in flight are cut short, and the rows not done are reported as failed for a redelivery.
   */
  timeReserveMs: 1_000,
  /**
   * Send what the app's OpenTelemetry SDK recorded before the invocation answers, within the time
   * reserve: a Lambda function is frozen once it has answered.
   */
  flushTelemetry: true,
} as const;
