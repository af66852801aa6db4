import * as root from 'dynafold';
import * as lambda from 'dynafold/lambda';

test("'dynafold/lambda' exports the handlers and their defaults", () => {
  expect(Object.keys(lambda).sort()).toEqual(['LambdaHandlerDefaults', 'kinesisHandler', 'lambdaHandler']);
});

test("the root still exports what moved to 'dynafold/lambda', the same objects", () => {
  expect(root.lambdaHandler).toBe(lambda.lambdaHandler);
  expect(root.kinesisHandler).toBe(lambda.kinesisHandler);
  expect(root.LambdaHandlerDefaults).toBe(lambda.LambdaHandlerDefaults);
});

test('the root re-exports the same Lambda types', () => {
  // Compiles only while each root type is the 'dynafold/lambda' one.
  const same = <T>(value: T): T => value;
  const event: lambda.LambdaStreamEvent = same<root.LambdaStreamEvent>({ Records: [] });
  const kinesis: root.LambdaKinesisEvent = same<lambda.LambdaKinesisEvent>({ Records: [] });
  const context: root.LambdaContextLike = same<lambda.LambdaContextLike>({ getRemainingTimeInMillis: () => 1 });
  expect([event.Records, kinesis.Records, context.getRemainingTimeInMillis()]).toEqual([[], [], 1]);
});
