// The scenario through CommonJS requires.
const assert = require('node:assert/strict');
const dynafold = require('dynafold');
const local = require('dynafold/local');
// dynafold and dynafold/local load no Streams client until a stream is read (only dynafold/feed needs it).
const streamsLoaded = () => Object.keys(require.cache).some((file) => file.includes('client-dynamodb-streams'));
assert.equal(streamsLoaded(), false, 'dynafold/local loaded @aws-sdk/client-dynamodb-streams');
// The service subpaths load neither their framework nor the Streams client until a feed runs.
for (const subpath of ['dynafold/fastify', 'dynafold/express']) {
  const service = require(subpath);
  assert.equal(typeof service.dynafold, 'function', `${subpath}: no dynafold`);
  assert.equal(typeof service.problemHandler, 'function', `${subpath}: no problemHandler`);
  assert.equal(streamsLoaded(), false, `${subpath} loaded @aws-sdk/client-dynamodb-streams`);
}
// The Lambda subpath loads no Streams client either: a handler's bundle or cold start needs none.
const lambda = require('dynafold/lambda');
assert.equal(typeof lambda.lambdaHandler, 'function', 'dynafold/lambda: no lambdaHandler');
assert.equal(lambda.lambdaHandler, dynafold.lambdaHandler, 'dynafold/lambda: another lambdaHandler than the root re-exports');
assert.equal(streamsLoaded(), false, 'dynafold/lambda loaded @aws-sdk/client-dynamodb-streams');
// The outbox's relay runs in a function of its own; personal data's keys are a subpath of their own; the types
// subpath holds types alone.
assert.equal(typeof require('dynafold/outbox').OutboxRelay, 'function', 'dynafold/outbox: no OutboxRelay');
assert.equal(typeof require('dynafold/erasure').SubjectKeys, 'function', 'dynafold/erasure: no SubjectKeys');
assert.deepEqual(Object.keys(require('dynafold/types')), [], 'dynafold/types: values in a subpath of types');
assert.equal(streamsLoaded(), false, 'dynafold/outbox, dynafold/erasure or dynafold/types loaded @aws-sdk/client-dynamodb-streams');
// Reactions, workflows and timers load neither the Streams client nor EventBridge Scheduler's (an optional
// peer the app does not install: dynafold/scheduler alone loads it).
const reactions = require('dynafold/reactions');
assert.equal(typeof reactions.Reaction, 'function', 'dynafold/reactions: no Reaction');
assert.equal(typeof reactions.Workflow, 'function', 'dynafold/reactions: no Workflow');
assert.deepEqual(
  Object.keys(reactions).sort(),
  [
    'DynamoTimers',
    'Reaction',
    'TimerDefaults',
    'Workflow',
    'append',
    'cancel',
    'command',
    'complete',
    'message',
    'reactionsTableDefinition',
    'runTimerSweeps',
    'schedule',
    'sweepTimers',
    'systemClock',
    'timerSweepHandler',
  ],
  'dynafold/reactions: not the exports its entry point lists',
);
assert.equal(streamsLoaded(), false, 'dynafold/reactions loaded @aws-sdk/client-dynamodb-streams');
assert.equal(
  Object.keys(require.cache).some((file) => file.includes('client-scheduler')),
  false,
  'dynafold/reactions loaded @aws-sdk/client-scheduler',
);
// The app has no OpenTelemetry, an optional peer: everything loads, and the scenario's handler runs, without it.
assert.throws(() => require.resolve('@opentelemetry/api'), /Cannot find module/);
const feed = require('dynafold/feed');
assert.equal(typeof feed.ChangeFeedConsumer, 'function');
const sdk = require('@aws-sdk/client-dynamodb');
const streams = require('@aws-sdk/client-dynamodb-streams');
const { z } = require('zod');
const cdk = { core: require('aws-cdk-lib'), lambda: require('aws-cdk-lib/aws-lambda'), dynafold: require('dynafold/cdk') };

require('./scenario.cjs')({ dynafold, local, sdk, streams, z, cdk }).then(
  () => console.log('cjs: ok'),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
