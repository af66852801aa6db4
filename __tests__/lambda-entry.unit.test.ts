import * as root from 'dynafold';
import * as lambda from 'dynafold/lambda';

test("'dynafold/lambda' exports the handlers, their defaults, the batch plumbing, image decoding and filter patterns", () => {
  expect(Object.keys(lambda).sort()).toEqual([
    'BatchResponse',
    'LambdaHandlerDefaults',
    'answerAfter',
    'batchResponse',
    'eventFilterPattern',
    'kinesisHandler',
    'lambdaHandler',
    'processBatch',
    'unmarshallImage',
  ]);
});

test('the root still exports the Lambda handlers, the same objects, and no longer the batch plumbing', () => {
  expect(root.lambdaHandler).toBe(lambda.lambdaHandler);
  expect(root.kinesisHandler).toBe(lambda.kinesisHandler);
  expect(root.LambdaHandlerDefaults).toBe(lambda.LambdaHandlerDefaults);
  for (const name of ['processBatch', 'BatchResponse', 'batchResponse', 'unmarshallImage', 'eventFilterPattern'])
    expect(root).not.toHaveProperty(name);
});

test('the root re-exports the same Lambda types', () => {
  // Compiles only while each root type is the 'dynafold/lambda' one.
  const same = <T>(value: T): T => value;
  const event: lambda.LambdaStreamEvent = same<root.LambdaStreamEvent>({ Records: [] });
  const kinesis: root.LambdaKinesisEvent = same<lambda.LambdaKinesisEvent>({ Records: [] });
  const context: root.LambdaContextLike = same<lambda.LambdaContextLike>({ getRemainingTimeInMillis: () => 1 });
  const record: root.LambdaStreamRecord = same<lambda.LambdaStreamRecord>({ eventName: 'INSERT' });
  expect([event.Records, kinesis.Records, context.getRemainingTimeInMillis(), record.eventName]).toEqual([[], [], 1, 'INSERT']);
});
