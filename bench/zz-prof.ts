/**
 * One kind of operation, one at a time, for a CPU profile of it: `node --cpu-prof --import tsx
 * bench/profile.ts <dynafold|bare> <append|command|load|snapshot-load|project> [count] [events per append]` (with
 * `TSX_TSCONFIG_PATH=tsconfig.bench-dist.json`, dynafold's build; see `npm run bench:built`). It prints this
 * process's CPU and wall time per operation and the requests each sent; `--cpu-prof` writes the profile.
 * The operations are the peers scenario's, on 50 streams of a DynamoDB Local of their own, after a warm-up;
 * `project` is per event of in-order deliveries of 100 orders' records to fresh projections.
 */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { barePeer } from './peers/bare-peer';
import { dynafoldPeer } from './peers/dynafold-peer';
import type { Metered } from './peers/measure';
import type { Peer } from './peers/peer';
import { EVENTS_PER_ORDER, inOrderLanes, recordsOf, writeWorkload } from './peers/projection';
import { deliverOnLanes } from './support/lanes';
import { endpointOf, startLocal } from './support/local';

const STREAMS = 50;
const WARM_UP = 200;
const operations = ['append', 'command', 'load', 'snapshot-load', 'project'] as const;
/** Orders of 10 events the `project` operation delivers, in order (one lane, batches of 100): an operation is one event. */
const PROJECTED_ORDERS = 100;
type Operation = (typeof operations)[number];

function operationOf(peer: Peer, operation: Operation, size: number): (index: number) => Promise<unknown> {
  const versions = new Map<string, number>();
  const id = (index: number) => `profile-${index % STREAMS}`;
  switch (operation) {
    case 'append':
      return async (index) => {
        const version = versions.get(id(index)) ?? 0;
        await peer.append(id(index), version, size);
        versions.set(id(index), version + size);
      };
    case 'command':
      return (index) => peer.command(id(index));
    case 'load':
      return (index) => peer.load(id(index));
    case 'snapshot-load':
      return (index) => (peer.loadWithSnapshot as (orderId: string) => Promise<unknown>)(id(index));
    case 'project':
      throw new Error('project runs whole deliveries: see projectRounds');
  }
}

/**
 * `project`: the peer's stream records of `PROJECTED_ORDERS` orders of 10 events delivered in order to a
 * fresh projection, again and again until `count` events were projected; a warm-up delivery first.
 */
async function projectRounds(peer: Peer, endpoint: ReturnType<typeof endpointOf>, count: number): Promise<() => Promise<number>> {
  const m = { peer } as unknown as Metered;
  const ids = Array.from({ length: PROJECTED_ORDERS }, (_, i) => `proj-${i}`);
  await writeWorkload(m, ids);
  const streams = new DynamoDBStreamsClient({ ...endpoint, maxAttempts: 3 });
  const records = await recordsOf(streams, m);
  streams.destroy();
  const events = PROJECTED_ORDERS * EVENTS_PER_ORDER;
  let round = 0;
  const deliverOnce = async () => {
    const projector = await peer.projector(`Profile${round++}`);
    const outcome = await deliverOnLanes(inOrderLanes(records), (batch) => projector.project(batch), 2);
    if (outcome.givenUp > 0) throw new Error(`${peer.name} gave up ${outcome.givenUp} records`);
  };
  await deliverOnce();
  return async () => {
    for (let projected = 0; projected < count; projected += events) await deliverOnce();
    return Math.ceil(count / events) * events;
  };
}

async function main(): Promise<void> {
  const [who = 'dynafold', what = 'command', count = '600', size = '1'] = process.argv.slice(2);
  const operation = what as Operation;
  if (!operations.includes(operation) || (who !== 'dynafold' && who !== 'bare'))
    throw new Error(`usage: bench/profile.ts <dynafold|bare> <${operations.join('|')}> [count] [events per append]`);
  const local = await startLocal();
  const peer = await (who === 'bare' ? barePeer : dynafoldPeer)(endpointOf(local), 'profile');
  try {
    // Loads read streams of 10 events (from a snapshot at their head, for snapshot loads).
    if (operation === 'load' || operation === 'snapshot-load') {
      for (let stream = 0; stream < STREAMS; stream++) for (let event = 0; event < 10; event++) await peer.command(`profile-${stream}`);
      if (operation === 'snapshot-load') for (let stream = 0; stream < STREAMS; stream++) await peer.prepareSnapshot(`profile-${stream}`);
    }
    const rounds = operation === 'project' ? await projectRounds(peer, endpointOf(local), Number(count)) : undefined;
    const run = operation === 'project' ? undefined : operationOf(peer, operation, Number(size));
    if (run !== undefined) for (let index = 0; index < WARM_UP; index++) await run(index);
    const requests = new Map<string, number>();
    peer.client.middlewareStack.add(
      (next, context) => (args) => {
        requests.set(context.commandName ?? 'unknown', (requests.get(context.commandName ?? 'unknown') ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize', name: 'profileRequests' },
    );
    let times = Number(count);
    const session = new Session(); session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 }); await session.post('Profiler.start');
    const cpu = process.cpuUsage();
    const started = performance.now();
    if (rounds !== undefined) times = await rounds();
    else if (run !== undefined) for (let index = 0; index < times; index++) await run(WARM_UP + index);
    const { user, system } = process.cpuUsage(cpu);
    const { profile } = await session.post('Profiler.stop'); writeFileSync(`${process.env['ZZ_PROF']}/x.cpuprofile`, JSON.stringify(profile));
    const perOperation = [...requests].map(([name, n]) => `${name} ${(n / times).toFixed(2)}`).join(', ');
    process.stdout.write(
      `${who} ${operation}: ${((user + system) / times).toFixed(0)} µs CPU, ${((performance.now() - started) / times).toFixed(2)} ms per operation; ${perOperation}\n`,
    );
  } finally {
    peer.destroy();
    await local.stop();
  }
}

void main();
