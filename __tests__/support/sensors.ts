import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, Projection, ReadModel, type AnyProjection, type StreamEvent } from 'dynafold';
import type { SpecProjection } from 'dynafold/testing';

/** The seed's sensor example: one row per sensor and zone, the zone taken from each event. */
export function sensorStream(client: DynamoDBClient, table: string) {
  return new EventStream({
    client,
    table,
    name: 'Sensor',
    streamId: ['sensorId'],
    events: {
      SensorPlaced: z.object({ zone: z.string() }),
      SensorReading: z.object({ zone: z.string(), celsius: z.number() }),
      SensorNote: z.object({ text: z.string() }),
    },
  });
}

export function zoneReadings(client: DynamoDBClient, table: string, name = 'ZoneReading') {
  return new ReadModel({
    client,
    table,
    name,
    schema: z.object({
      sensorId: z.string(),
      zone: z.string(),
      readings: z.number(),
      maxCelsius: z.number(),
      seq: z.number(),
      alertKey: z.string(),
    }),
    key: { pk: { field: 'pk', composite: ['sensorId'] }, sk: { field: 'sk', composite: ['zone'] } },
    hidden: ['alertKey'],
  });
}

export class ZoneNotPlaced extends Error {
  constructor(readonly version: number) {
    super(`zone not placed before version ${version}`);
  }
}

export function zoneProjection(stream: ReturnType<typeof sensorStream>, readModel: ReturnType<typeof zoneReadings>) {
  return new Projection({
    stream,
    readModel,
    // Notes address no row.
    key: (streamId, event) => (event.type === 'SensorNote' ? undefined : { sensorId: streamId.sensorId, zone: event.data.zone }),
    initial: (streamId, event) => ({
      sensorId: streamId.sensorId,
      zone: event.type === 'SensorNote' ? '' : event.data.zone,
      readings: -1, // not placed yet
      maxCelsius: -1000,
      seq: 0,
      alertKey: '',
    }),
    evolve: (state, event) => {
      if (event.type === 'SensorPlaced') return { ...state, readings: 0 };
      if (event.type !== 'SensorReading') return state;
      if (state.readings < 0) throw new ZoneNotPlaced(event.version);
      return { ...state, readings: state.readings + 1, maxCelsius: Math.max(state.maxCelsius, event.data.celsius) };
    },
    checkpoint: 'seq',
    terminal: (error) => error instanceof ZoneNotPlaced,
    toItem: (state) => ({ ...state, alertKey: state.maxCelsius > 30 ? 'hot' : 'normal' }),
  });
}

/** A zone's row as `parkingZoneProjection` folds it before its first event. */
export function zoneRowOf(sensorId: string, zone: string) {
  return { sensorId, zone, readings: 0, maxCelsius: -1000, seq: 0, alertKey: 'normal' };
}

/** Zones whose rows count readings; zone x's row fails on every event and is parked at its first failure. */
export function parkingZoneProjection(stream: ReturnType<typeof sensorStream>, readModel: ReturnType<typeof zoneReadings>) {
  return new Projection({
    stream,
    readModel,
    key: (streamId, event) => (event.type === 'SensorNote' ? undefined : { sensorId: streamId.sensorId, zone: event.data.zone }),
    initial: (streamId, event) => zoneRowOf(streamId.sensorId, event.type === 'SensorNote' ? '' : event.data.zone),
    evolve: (state, event) => {
      if (event.type !== 'SensorNote' && event.data.zone === 'x') throw new Error('zone x is broken');
      if (event.type !== 'SensorReading') return state;
      return { ...state, readings: state.readings + 1, maxCelsius: Math.max(state.maxCelsius, event.data.celsius) };
    },
    checkpoint: 'seq',
    poison: { park: { afterAttempts: 1 } },
  });
}

/**
 * A projection that loses the events `lost` picks before its engine sees them, and so never applies them
 * (as a projector that dropped an event would), unless a later event of their row reads them from the
 * store: a projection spec must not pass over it.
 */
export function losing<P extends SpecProjection>(projection: P, lost: (event: StreamEvent) => boolean): P {
  const applyEntries: AnyProjection['applyEntries'] = (entries, options) =>
    projection.applyEntries(
      entries.filter((entry) => !lost(entry.event)),
      options,
    );
  return Object.assign(Object.create(projection) as P, { applyEntries });
}
