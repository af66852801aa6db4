import { rawAppend } from '../baselines/raw-append';
import { clients } from '../support/local';
import { newEvents, orderTables } from '../support/orders';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { pool, sum } from '../support/stats';

const WRITERS = 16;
const EVENTS_PER_APPEND = 5;

/**
 * Append throughput: 16 concurrent writers, each on its own streams, appending 5 events at a time with
 * `expectedVersion`, through `EventStream.append` vs raw TransactWriteItems of identical items and
 * conditions. Rounds alternate between the two so drift on a shared machine hits both.
 */
export const append: Scenario = {
  name: 'append',
  title: 'Append',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const c = clients(context.endpoint);
    const rounds = context.quick ? 2 : 4;
    const appendsPerRound = context.quick ? 96 : 800;
    const dynafoldMs: number[] = [];
    const rawMs: number[] = [];
    try {
      const { events, stream } = await orderTables(c.client, 'append');
      // Warm-up, not measured.
      await pool(64, WRITERS, (i) =>
        stream.append({ orderId: `warm-${i}` }, newEvents(1, EVENTS_PER_APPEND), { expectedVersion: 0 }).then(() => undefined),
      );
      await pool(64, WRITERS, (i) => rawAppend(c.documents, events.name, `warm-raw-${i}`, 0, newEvents(1, EVENTS_PER_APPEND)));
      for (let round = 0; round < rounds; round++) {
        // Each writer appends to its own stream, one append after another: versions 0, 5, 10, ...
        const streamsPerWriter = 4;
        const run = async (write: (streamId: string, expected: number) => Promise<void>) => {
          const t = performance.now();
          await Promise.all(
            Array.from({ length: WRITERS }, async (_, w) => {
              for (let i = 0; i < appendsPerRound / WRITERS; i++) {
                const s = i % streamsPerWriter;
                await write(`r${round}-w${w}-s${s}`, Math.floor(i / streamsPerWriter) * EVENTS_PER_APPEND);
              }
            }),
          );
          return performance.now() - t;
        };
        const viaDynafold = () =>
          run(async (streamId, expected) => {
            await stream.append({ orderId: `d-${streamId}` }, newEvents(expected + 1, EVENTS_PER_APPEND), { expectedVersion: expected });
          });
        const viaRaw = () =>
          run((streamId, expected) => rawAppend(c.documents, events.name, `raw-${streamId}`, expected, newEvents(expected + 1, EVENTS_PER_APPEND)));
        if (round % 2 === 0) {
          dynafoldMs.push(await viaDynafold());
          rawMs.push(await viaRaw());
        } else {
          rawMs.push(await viaRaw());
          dynafoldMs.push(await viaDynafold());
        }
      }
    } finally {
      c.destroy();
    }
    const eventsPerRound = appendsPerRound * EVENTS_PER_APPEND;
    const d = (eventsPerRound * rounds) / (sum(dynafoldMs) / 1000);
    const r = (eventsPerRound * rounds) / (sum(rawMs) / 1000);
    const rows: Row[] = [
      {
        scenario: '5 append',
        measure: 'events/s, 16 writers × 5 events',
        dynafold: d,
        baseline: r,
        against: 'raw TransactWriteItems',
        ratio: d / r,
        target: '≥ 0.80×',
        pass: d / r >= 0.8,
      },
      {
        scenario: '5 append',
        measure: 'appends/s',
        dynafold: d / EVENTS_PER_APPEND,
        baseline: r / EVENTS_PER_APPEND,
        against: 'raw TransactWriteItems',
        ratio: d / r,
      },
    ];
    return {
      rows,
      notes: [
        `${rounds} alternating rounds of ${appendsPerRound} appends of ${EVENTS_PER_APPEND} events with expectedVersion (a ConditionCheck + ${EVENTS_PER_APPEND} Puts each).`,
      ],
      details: { writers: WRITERS, rounds, appendsPerRound, eventsPerAppend: EVENTS_PER_APPEND, dynafoldMs, rawMs },
    };
  },
};
