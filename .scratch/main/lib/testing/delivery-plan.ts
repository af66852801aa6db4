import { randomInt, seededRandom, shuffle } from './random';

/**
 * How a projection spec delivers a stream's records:
 * - `inOrder`: in stream order, in batches of random sizes, one at a time;
 * - `shuffled`: in a random order;
 * - `duplicated`: in stream order, with records repeated and whole batches delivered again (as Lambda
 *   does after a timeout or a lost answer);
 * - `lanes`: on parallel lanes by partition key (Lambda's ParallelizationFactor), lanes running at once,
 *   batches delivered again at random.
 * In every mode a batch whose answer reports failures is delivered again from the first one reported.
 */
export type DeliveryMode = 'inOrder' | 'shuffled' | 'duplicated' | 'lanes';

/** Every delivery mode, the default of a projection spec. */
export const DeliveryModes: ReadonlyArray<DeliveryMode> = ['inOrder', 'shuffled', 'duplicated', 'lanes'];

/** The shape of a delivery plan. */
export interface DeliveryShape {
  /** Lanes of the `lanes` mode. */
  readonly lanes: number;
  /** Batches hold 1 to this many records. */
  readonly maxBatchSize: number;
}

/** How often a record is repeated, or a batch delivered again, where a mode does so. */
const REPEAT_RATE = 0.3;

/**
 * A delivery: lanes, each a list of batches of positions into `partitionKeys` (one per record, the
 * record's partition key), delivered in list order within a lane. Pure: the same seed gives the same plan.
 */
export function planDelivery(mode: DeliveryMode, partitionKeys: ReadonlyArray<string>, seed: number, shape: DeliveryShape): number[][][] {
  const random = seededRandom(seed);
  const positions = partitionKeys.map((_key, position) => position);
  const batches = (sequence: ReadonlyArray<number>, redeliver: boolean) => {
    const result: number[][] = [];
    for (let start = 0; start < sequence.length;) {
      const batch = sequence.slice(start, start + randomInt(random, 1, shape.maxBatchSize));
      result.push(batch);
      if (redeliver && random() < REPEAT_RATE) result.push(batch);
      start += batch.length;
    }
    return result;
  };
  switch (mode) {
    case 'inOrder':
      return [batches(positions, false)];
    case 'shuffled':
      return [batches(shuffle(positions, random), false)];
    case 'duplicated':
      return [
        batches(
          positions.flatMap((position) => (random() < REPEAT_RATE ? [position, position] : [position])),
          true,
        ),
      ];
    case 'lanes': {
      const lanes: number[][] = Array.from({ length: shape.lanes }, () => []);
      positions.forEach((position) => lanes[laneOf(partitionKeys[position] as string, shape.lanes)]?.push(position));
      return lanes.filter((lane) => lane.length > 0).map((lane) => batches(lane, true));
    }
  }
}

/** The lane of a partition key: a hash (FNV-1a) modulo the lanes, so one key always takes the same lane. */
function laneOf(key: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return (hash >>> 0) % lanes;
}
