/** Every DynamoDB Local of the run, comma-separated, one per jest worker (set by `global-setup.ts`). */
export const WORKER_ENDPOINTS = 'DYNAFOLD_TEST_WORKER_ENDPOINTS';

/**
 * The endpoint of this jest worker's own DynamoDB Local (`JEST_WORKER_ID` counts from 1), or undefined
 * when the run has only one.
 */
export function workerEndpoint(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const endpoints = env[WORKER_ENDPOINTS]?.split(',').filter((endpoint) => endpoint !== '') ?? [];
  if (endpoints.length === 0) return undefined;
  const worker = Math.max(1, Number(env['JEST_WORKER_ID'] ?? '1') || 1);
  return endpoints[(worker - 1) % endpoints.length];
}
