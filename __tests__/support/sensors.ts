import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, Projection, ReadModel } from 'dynafold';

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
