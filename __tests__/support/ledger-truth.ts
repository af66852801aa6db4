import { RowAttributes } from '../../lib/read-model/read-model-keys';
import {
  eventKey,
  foldAccount,
  ledgerMessage,
  type accountModel,
  type LedgerEvent,
  type LedgerMessage,
  type ownerModel,
  type zoneModel,
} from './ledger';

/**
 * The oracles of the ledger's rows: each expects every row of a model to equal a fold of the store
 * written here, independently of the library, and resolves what the projection must have applied.
 */
type History = ReadonlyMap<string, ReadonlyArray<LedgerEvent>>;

/** Every account row (live or tombstone) equals its instance's fold; resolves the applied events and their messages. */
export async function expectAccountRows(
  accounts: ReturnType<typeof accountModel>,
  history: History,
): Promise<{ applied: string[]; messages: Map<string, LedgerMessage> }> {
  const applied: string[] = [];
  const messages = new Map<string, LedgerMessage>();
  for (const [instance, events] of history) {
    const [stream, id] = instance.split('#') as [string, string];
    if (stream !== 'A') continue;
    const truth = foldAccount(id, events);
    const row = await accounts.get({ id }, { consistent: true, includeRemoved: true });
    expect({ instance, row: row && withoutTimes(row) }).toEqual({
      instance,
      row: truth.row === undefined ? undefined : { ...truth.row, ...(truth.removed ? { removed: true } : {}) },
    });
    applied.push(...truth.applied.map(eventKey));
    truth.applied.forEach((event, index) => messages.set(eventKey(event), ledgerMessage(event, truth.balances[index])));
  }
  return { applied, messages };
}

/** Every zone row (per B instance and zone a deposit names) sums its deposits; resolves the applied events. */
export async function expectZoneRows(zones: ReturnType<typeof zoneModel>, history: History): Promise<string[]> {
  const applied: string[] = [];
  for (const [instance, events] of history) {
    const [stream, id] = instance.split('#') as [string, string];
    if (stream !== 'B') continue;
    const deposits = events.filter((event) => event.type === 'Deposited' && event.data.zone !== undefined);
    applied.push(...deposits.map(eventKey));
    for (const zone of new Set(deposits.map((event) => event.data.zone as string))) {
      const own = deposits.filter((event) => event.data.zone === zone);
      const row = await zones.get({ id, zone }, { consistent: true });
      expect({ instance, zone, row: row && withoutTimes(row) }).toEqual({
        instance,
        zone,
        row: { id, zone, total: sumOf(own), count: own.length, version: own[own.length - 1]?.version },
      });
    }
  }
  return applied;
}

/**
 * Every owner row sums the events naming it over all source instances, and each instance's checkpoint
 * covers its applied events and nothing past its last event for the owner; resolves the applied events.
 */
export async function expectOwnerRows(owners: ReturnType<typeof ownerModel>, history: History): Promise<string[]> {
  const all = [...history.values()].flat();
  const folded = all.filter((event) => event.type !== 'Skipped' && event.type !== 'Rejected');
  for (const owner of new Set(all.map((event) => event.data.owner))) {
    const own = folded.filter((event) => event.data.owner === owner);
    const row = await owners.get({ owner }, { consistent: true });
    expect({ owner, row: row && withoutTimes(row) }).toEqual({
      owner,
      row:
        own.length === 0
          ? undefined
          : {
              owner,
              total: sumOf(own),
              events: own.length,
              fromA: own.filter((event) => event.streamName === 'A').length,
              fromB: own.filter((event) => event.streamName === 'B').length,
            },
    });
    const item = await owners.getItem({ owner });
    const sources = (item?.[RowAttributes.sources] ?? {}) as Record<string, number>;
    for (const [instance, events] of history) {
      const addressing = events.filter((event) => event.data.owner === owner);
      const lastApplied = addressing.filter((event) => event.type !== 'Skipped' && event.type !== 'Rejected').at(-1)?.version ?? 0;
      const checkpoint = sources[instance] ?? 0;
      expect({ owner, instance, atLeast: checkpoint >= lastApplied, atMost: checkpoint <= (addressing.at(-1)?.version ?? 0) }).toEqual({
        owner,
        instance,
        atLeast: true,
        atMost: true,
      });
    }
  }
  return folded.map(eventKey);
}

function sumOf(events: ReadonlyArray<LedgerEvent>): number {
  return events.reduce((sum, event) => sum + (event.data.amount ?? 0), 0);
}

export function withoutTimes<Row extends { createdAt: string; updatedAt: string }>(row: Row): Omit<Row, 'createdAt' | 'updatedAt'> {
  const { createdAt: _c, updatedAt: _u, ...rest } = row;
  return rest;
}
