/**
 * A program that starts an embedded DynamoDB Local, prints its port and waits to be killed: the tests
 * SIGKILL it to show that its JVM does not outlive it.
 */
import { startDynamoLocal } from 'dynafold/local';

void startDynamoLocal({ jvmArgs: ['-XX:TieredStopAtLevel=1'] }).then((local) => {
  process.stdout.write(`${JSON.stringify({ port: local.port })}\n`);
  setInterval(() => undefined, 60_000);
});
