import fc from 'fast-check';
import { KeyProviderError, SubjectForgottenError } from 'dynafold';
import { SubjectKeys, subjectKeysTableDefinition } from 'dynafold/erasure';
import { testKeyProvider } from '../support/customers';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { createTestTable, testClient } from '../support/dynamo';
import { Gates } from '../support/gates';

// Two processes (two SubjectKeys on one key table, each with its cache; the second keeps one subject at
// most) read, append for and forget two subjects, which the table holds a key of, a marker of, or nothing,
// while the cache lifetime runs out now and then (a fake clock) and a key provider fails once in a while. Every request waits at a gate before it is sent and again before its answer is handed back, and
// every provider call at one of its own: the steps are let go one at a time in a generated order, so loads,
// keys' creations and forgets interleave every way a network allows. Afterwards:
// - once a process's `forget` resolved, no read of that process opens the subject and no append seals for it;
// - once another process's forget resolved and a lifetime passed, the same holds of a read or append begun
//   after both (and after the process's loads of the subject in flight then ended);
// - a key made by any process is found by a read or an append begun after it, unless the subject was
//   being forgotten;
// - a subject has one key, whoever reads or made it; and nothing else fails.
const client = testClient();
const gates = new Gates();
gates.hold(client);
const provider = testKeyProvider();
let table: string;
beforeAll(async () => {
  table = (await createTestTable(client, subjectKeysTableDefinition, 'prop-keycache')).name;
});
afterAll(() => client.destroy());

const LIFETIME_MS = 300_000;
type Process = 0 | 1;
type Subject = 0 | 1;
type Command =
  /** Starts an operation; `atOnce`: lets all its steps go right away (it runs alone, unless it waits for another). */
  | { readonly kind: 'read' | 'append' | 'forget'; readonly process: Process; readonly subject: Subject; readonly atOnce: boolean }
  /** Lets one held step go (`step`), or every step of one operation until it ends or waits for another (`finish`). */
  | { readonly kind: 'step' | 'finish'; readonly pick: number }
  | { readonly kind: 'expire' }
  | { readonly kind: 'providerFails'; readonly process: Process };

const process_ = fc.constantFrom<Process>(0, 1);
// Mostly the first subject: the races that matter are between operations on one subject.
const subject_ = fc.constantFrom<Subject>(0, 0, 0, 1);
const commands: fc.Arbitrary<Command[]> = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('read' as const), process: process_, subject: subject_, atOnce: fc.boolean() }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('append' as const), process: process_, subject: subject_, atOnce: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), process: process_, subject: subject_, atOnce: fc.boolean() }) },
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('step' as const), pick: fc.nat(5) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(3) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('providerFails' as const), process: process_ }) },
  ),
  { minLength: 8, maxLength: 40, size: 'max' },
);

/** What the key table holds of each subject before the processes start, both with a cold cache. */
type Before = 'nothing' | 'key' | 'forgotten';
const before_ = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Before>('nothing') },
  { weight: 2, arbitrary: fc.constant<Before>('key') },
  { weight: 1, arbitrary: fc.constant<Before>('forgotten') },
);
const before: fc.Arbitrary<[Before, Before]> = fc.tuple(before_, before_);

/** What one operation did, with when it started and ended on one counter of everything that happened. */
interface Operation {
  readonly name: string;
  readonly kind: 'read' | 'append' | 'forget';
  readonly process: Process;
  readonly subject: Subject;
  readonly started: number;
  ended?: number;
  /** A read: what the process knew once loaded; an append: `sealed` or `refused`; a forget: `forgotten`. */
  outcome?: 'key' | 'forgotten' | 'missing' | 'none' | 'sealed' | 'refused' | 'providerFailed';
  key?: string;
  unexpected?: unknown;
}

let cases = 0;

test(
  'once forget resolves in a process, that process opens and seals nothing more of the subject; a key made elsewhere is found',
  async () => {
    await fc.assert(
      fc.asyncProperty(before, commands, async (table, script) => check(++cases, table, script)),
      propertySettings(100),
    );
  },
  propertyTimeout(100),
);

async function check(n: number, initially: readonly [Before, Before], script: ReadonlyArray<Command>): Promise<void> {
  const clock = { now: 0 };
  // The second process keeps one subject at most: its entries (a forgotten one too) are dropped to make room.
  const processes = [10_000, 1].map((cacheMaxEntries) => {
    const gated = gates.provider(provider);
    const keys = new SubjectKeys({ client, table, provider: gated, now: () => clock.now, cacheLifetimeMs: LIFETIME_MS, cacheMaxEntries });
    return { provider: gated, keys };
  });
  const subjects = [`${n}-a`, `${n}-b`] as const;
  const setup = new SubjectKeys({ client, table, provider });
  for (const [index, state] of initially.entries()) {
    const id = subjects[index] as string;
    if (state === 'key') await setup.forWriting(new Set([id]));
    if (state === 'forgotten') await setup.forget(id);
  }
  const operations: Operation[] = [];
  const running: Array<Promise<void>> = [];
  const expiries: number[] = [];
  let seq = 0;

  const start = (kind: Operation['kind'], process: Process, subject: Subject) => {
    const operation: Operation = { name: `${kind}-${operations.length}`, kind, process, subject, started: ++seq };
    operations.push(operation);
    const { keys } = processes[process] as (typeof processes)[number];
    const id = subjects[subject];
    const end = (outcome: Operation['outcome'], key?: string) => {
      operation.ended = ++seq;
      operation.outcome = outcome;
      if (key !== undefined) operation.key = key;
    };
    const run = async () => {
      try {
        if (kind === 'read') {
          await keys.load([id]);
          const known = keys.known(id);
          end(known?.kind ?? 'none', known?.kind === 'key' ? known.key.export().toString('hex') : undefined);
        } else if (kind === 'append') {
          const key = (await keys.forWriting(new Set([id]))).get(id);
          end('sealed', key?.export().toString('hex'));
        } else {
          await keys.forget(id);
          end('forgotten');
        }
      } catch (error) {
        if (kind === 'append' && error instanceof SubjectForgottenError) end('refused');
        else if (kind === 'append' && error instanceof KeyProviderError) end('providerFailed');
        else operation.unexpected = error;
      }
    };
    running.push(gates.run(operation.name, run));
    return operation.name;
  };

  for (const command of script) {
    switch (command.kind) {
      case 'step': {
        const held = gates.steps.length;
        if (held > 0) await gates.release(command.pick % held);
        break;
      }
      case 'finish': {
        const holding = [...new Set(gates.steps.map((step) => step.operation))];
        const operation = holding[command.pick % Math.max(holding.length, 1)];
        if (operation !== undefined) await gates.advance(operation);
        break;
      }
      case 'expire':
        clock.now += LIFETIME_MS;
        expiries.push(++seq);
        break;
      case 'providerFails':
        (processes[command.process] as (typeof processes)[number]).provider.faults.failNextNewKey = true;
        break;
      default: {
        const name = start(command.kind, command.process, command.subject);
        await gates.settle();
        if (command.atOnce) await gates.advance(name);
      }
    }
  }
  // Everything still held goes on, oldest first.
  for (let released = 0; gates.steps.length > 0; released++) {
    if (released === 500) throw new Error('operations still held after 500 steps');
    await gates.release(0);
  }
  await Promise.all(running);

  const described = () => JSON.stringify(operations.map(({ key: _key, unexpected: _unexpected, ...rest }) => rest));
  for (const operation of operations) {
    if (operation.unexpected !== undefined) throw new Error(`${operation.name} failed: ${String(operation.unexpected)}; ${described()}`);
    if (operation.ended === undefined) throw new Error(`${operation.name} never ended; ${described()}`);
  }
  const forgets = operations.filter((operation) => operation.kind === 'forget');
  for (const operation of operations) {
    if (operation.kind === 'forget') continue;
    const opened = operation.outcome === 'key' || operation.outcome === 'sealed';
    const sameSubject = (other: Operation) => other.subject === operation.subject;
    // Forgotten here: final from the moment forget resolved.
    const forgottenHere = forgets.find(
      (forget) => sameSubject(forget) && forget.process === operation.process && (forget.ended as number) < (operation.ended as number),
    );
    if (forgottenHere !== undefined && opened) throw new Error(`${operation.name} opened after ${forgottenHere.name} resolved; ${described()}`);
    // Forgotten elsewhere: once a lifetime passed, and no load of this process that began before is in flight.
    const forgottenElsewhere = forgets.find((forget) =>
      expiries.some(
        (expiry) =>
          sameSubject(forget) &&
          (forget.ended as number) < expiry &&
          expiry < operation.started &&
          operations.every(
            (other) =>
              other.process !== operation.process || !sameSubject(other) || other.started > expiry || (other.ended as number) < operation.started,
          ),
      ),
    );
    if (forgottenElsewhere !== undefined && opened)
      throw new Error(`${operation.name} opened a lifetime after ${forgottenElsewhere.name}; ${described()}`);
    // A key made before is found, unless the subject was being forgotten; a subject forgotten before is never opened.
    const made =
      initially[operation.subject] === 'key'
        ? 'the one made before'
        : operations.find((other) => sameSubject(other) && other.outcome === 'sealed' && (other.ended as number) < operation.started)?.name;
    const forgetting = forgets.some((forget) => sameSubject(forget) && forget.started < (operation.ended as number));
    if (made !== undefined && !forgetting && !opened) throw new Error(`${operation.name} did not find the key ${made}; ${described()}`);
    if (initially[operation.subject] === 'forgotten' && opened)
      throw new Error(`${operation.name} opened a subject forgotten before; ${described()}`);
  }
  for (const subject of [0, 1] as const) {
    const keys = new Set(
      operations.filter((operation) => operation.subject === subject && operation.key !== undefined).map((operation) => operation.key),
    );
    if (keys.size > 1) throw new Error(`subject ${subject} has ${keys.size} keys; ${described()}`);
  }
}
