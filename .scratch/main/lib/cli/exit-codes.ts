/** What `dynafold` exits with. */
export const ExitCodes = {
  ok: 0,
  /** A command failed: DynamoDB unreachable, a request refused, a backfill stopped. */
  failed: 1,
  /** Bad input: a missing or broken config, no AWS credentials, an unknown projection or feed, bad arguments. */
  usage: 2,
  /** `status` found something failing: parked rows, a feed behind with no live lease holder. */
  unhealthy: 3,
  /** Interrupted (Ctrl-C); what was done is kept (a backfill resumes). */
  interrupted: 130,
} as const;
