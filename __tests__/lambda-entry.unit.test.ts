import * as root from 'dynafold';
import * as lambda from 'dynafold/lambda';

test("'dynafold/lambda' exports the handlers, their defaults and the batch plumbing", () => {
  expect(Object.keys(lambda).sort()).toEqual([
    'BatchResponse',
    'LambdaHandlerDefaults',
    'answerAfter',
    'batchResponse',
    'kinesisHandler',
    'lambdaHandler',
    'processBatch',
  ]);
});

test("the root still exports what moved to 'dynafold/lambda', the same objects", () => {
  expect(root.lambdaHandler).toBe(lambda.lambdaHandler);
  expect(root.kinesisHandler).toBe(lambda.kinesisHandler);
  expect(root.LambdaHandlerDefaults).toBe(lambda.LambdaHandlerDefaults);
  expect(root.processBatch).toBe(lambda.processBatch);
  expect(root.BatchResponse).toBe(lambda.BatchResponse);
  expect(root.batchResponse).toBe(lambda.batchResponse);
});

test('the root re-exports the same Lambda types', () => {
  // Compiles only while each root type is the 'dynafold/lambda' one.
  const same = <T>(value: T): T => value;
  const event: lambda.LambdaStreamEvent = same<root.LambdaStreamEvent>({ Records: [] });
  const kinesis: root.LambdaKinesisEvent = same<lambda.LambdaKinesisEvent>({ Records: [] });
  const context: root.LambdaContextLike = same<lambda.LambdaContextLike>({ getRemainingTimeInMillis: () => 1 });
  const response: lambda.PartialBatchResponse = same<root.PartialBatchResponse>({ batchItemFailures: [] });
  const record: root.StreamRecordLike = same<lambda.StreamRecordLike>({ eventName: 'INSERT' });
  expect([event.Records, kinesis.Records, context.getRemainingTimeInMillis(), response.batchItemFailures, record.eventName]).toEqual([
    [],
    [],
    1,
    [],
    'INSERT',
  ]);
});
