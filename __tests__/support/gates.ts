/**
 * Gates that hold the steps of operations on subject keys until a test lets them go, one at a time: every
 * DynamoDB request an operation sends, held twice through a middleware on a real client (before it is sent,
 * `send …`, and once answered, before the answer reaches the caller, `answer …`: answers may come back in
 * another order than their requests went), and every call it makes to its key provider (`newKey`, `unwrap`). An operation is a function run with `gates.run(name, fn)`;
 * requests and calls made outside one pass straight through. With one step let go at a time and `settle`
 * waiting until everything let go has reached its next gate or finished, an interleaving of operations is
 * played out exactly as written, against DynamoDB Local.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KeyProvider, NewDataKey } from 'dynafold/erasure';

/** A step held at its gate. */
export interface HeldStep {
  /** The operation it belongs to. */
  readonly operation: string;
  /** `send <command>`, `answer <command>` (`send BatchGetItemCommand`), or the provider's call (`newKey`, `unwrap`). */
  readonly what: string;
}

/** A key provider whose calls wait at gates; `faults.failNextNewKey` makes its next `newKey` fail once let go. */
export interface GatedProvider extends KeyProvider {
  readonly faults: { failNextNewKey: boolean };
}

interface Held extends HeldStep {
  readonly go: () => void;
}

export class Gates {
  private readonly operations = new AsyncLocalStorage<string>();
  private readonly held: Held[] = [];
  /** Requests let go whose answer has not come back yet. */
  private inFlight = 0;

  /** Runs `fn` as the operation `name`: its requests and provider calls wait at gates. */
  run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.operations.run(name, fn);
  }

  /** Holds the requests `client` sends for an operation (and document clients made from it) at a gate. */
  hold(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = this.operations.getStore();
        if (operation === undefined) return next(args);
        const command = context.commandName ?? 'unknown';
        await this.gate(operation, `send ${command}`);
        this.inFlight++;
        let answer;
        try {
          answer = await next(args);
        } finally {
          this.inFlight--;
        }
        await this.gate(operation, `answer ${command}`);
        return answer;
      },
      { step: 'initialize', name: `gates-${Math.random().toString(36).slice(2)}` },
    );
  }

  /** `inner`, with each call made for an operation held at a gate. */
  provider(inner: KeyProvider): GatedProvider {
    const faults = { failNextNewKey: false };
    const gateOfCaller = async (what: string) => {
      const operation = this.operations.getStore();
      if (operation !== undefined) await this.gate(operation, what);
    };
    return {
      id: inner.id,
      faults,
      newKey: async (subject: string): Promise<NewDataKey> => {
        await gateOfCaller('newKey');
        if (faults.failNextNewKey) {
          faults.failNextNewKey = false;
          throw new Error('the key service is unavailable');
        }
        return inner.newKey(subject);
      },
      unwrap: async (subject: string, wrapped: Uint8Array): Promise<Uint8Array> => {
        await gateOfCaller('unwrap');
        return inner.unwrap(subject, wrapped);
      },
    };
  }

  /** The steps held, in the order they reached their gates. */
  get steps(): ReadonlyArray<HeldStep> {
    return this.held;
  }

  /** Lets the held step at `index` go on, and waits until everything running is held again or done. */
  async release(index: number): Promise<void> {
    const [step] = this.held.splice(index, 1);
    if (step === undefined) throw new Error(`no step held at ${index} (${this.held.length} held)`);
    step.go();
    await this.settle();
  }

  /**
   * Lets `operation`'s steps go, one by one, until it is held at `what` (which stays held), or, without
   * `what`, until it holds none (it finished, or waits for another operation).
   */
  async advance(operation: string, what?: string): Promise<void> {
    await this.settle();
    for (let released = 0; ; released++) {
      const index = this.held.findIndex((step) => step.operation === operation);
      const step = this.held[index];
      if (step === undefined) {
        if (what === undefined) return;
        throw new Error(`${operation} holds no step any more: it never reached \`${what}\``);
      }
      if (step.what === what) return;
      if (released === 100) throw new Error(`${operation} did not reach \`${what}\` in 100 steps`);
      await this.release(index);
    }
  }

  /** Lets `operation`'s first held step go. */
  async next(operation: string): Promise<void> {
    const index = this.held.findIndex((step) => step.operation === operation);
    if (index < 0) throw new Error(`${operation} holds no step`);
    await this.release(index);
  }

  /** Waits until every request let go has been answered and what followed ran up to a gate or to its end (10 s at most). */
  async settle(): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      // A macrotask turn runs every microtask queued before it: what follows an answer runs to the next gate.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.inFlight === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.inFlight === 0) return;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      if (Date.now() > deadline) throw new Error(`requests still unanswered after 10 s: ${this.inFlight}`);
    }
  }

  private gate(operation: string, what: string): Promise<void> {
    return new Promise((go) => this.held.push({ operation, what, go }));
  }
}

/** `promise`, or a rejection once `ms` passed without it settling: a test waits on a condition, never for ever. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
