export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __dynamoLocal?: { stop(): Promise<void> } }).__dynamoLocal?.stop();
}
