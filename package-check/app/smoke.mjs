// The scenario through ESM named imports of the CommonJS package (Node's detection of its exports).
import { createRequire } from 'node:module';
import * as sdk from '@aws-sdk/client-dynamodb';
import * as streams from '@aws-sdk/client-dynamodb-streams';
import * as core from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  DynafoldError,
  EventStream,
  lambdaHandler,
  Projection,
  ReadModel,
  ValidationError,
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import { EventsTable, Projector, ReadModelTable, eventFilterPattern } from 'dynafold/cdk';
import { dynafold as expressService } from 'dynafold/express';
import { dynafold as fastifyPlugin, etagOf } from 'dynafold/fastify';
import { ChangeFeedConsumer } from 'dynafold/feed';
import { readStreamRecords, startDynamoLocal, toLambdaRecord } from 'dynafold/local';
import { DynamoTimers, Reaction, Workflow, command, reactionsTableDefinition, sweepTimers } from 'dynafold/reactions';
import { TestClock, reactionSpec } from 'dynafold/testing';
import { z } from 'zod';

if (typeof ChangeFeedConsumer !== 'function') throw new Error('dynafold/feed: no ChangeFeedConsumer');
if (typeof fastifyPlugin !== 'function' || typeof expressService !== 'function' || etagOf(3) !== '"3"')
  throw new Error('dynafold/fastify or dynafold/express: missing exports');
if ([DynamoTimers, Reaction, Workflow, command, reactionsTableDefinition, sweepTimers].some((value) => typeof value !== 'function'))
  throw new Error('dynafold/reactions: missing exports');
if (typeof TestClock !== 'function' || typeof reactionSpec !== 'function') throw new Error('dynafold/testing: no TestClock or reactionSpec');
const scenario = createRequire(import.meta.url)('./scenario.cjs');
const dynafold = {
  DynafoldError,
  EventStream,
  lambdaHandler,
  Projection,
  ReadModel,
  ValidationError,
  eventsTableDefinition,
  readModelTableDefinition,
};
const cdk = { core, lambda, dynafold: { EventsTable, Projector, ReadModelTable, eventFilterPattern } };
await scenario({ dynafold, local: { readStreamRecords, startDynamoLocal, toLambdaRecord }, sdk, streams, z, cdk });
console.log('esm: ok');
