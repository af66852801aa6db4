import { join } from 'node:path';
import ts from 'typescript';
import type * as root from 'dynafold';
import * as erasure from 'dynafold/erasure';
import * as lambda from 'dynafold/lambda';
import * as outbox from 'dynafold/outbox';
import * as reactions from 'dynafold/reactions';
import * as scheduler from 'dynafold/scheduler';
import * as types from 'dynafold/types';

const repository = join(__dirname, '..');

/** The root's budget: what an app writes in ordinary code, its deprecated names included. */
const ROOT_NAMES_AT_MOST = 120;

interface Exported {
  readonly name: string;
  readonly deprecated: boolean;
  /** Its TSDoc's text, and whether it holds an `@example`. */
  readonly doc: string;
  readonly example: boolean;
}

/** The names each entry file exports, values and types, as the compiler sees them (as the API reference counts). */
function exportsOf(...entries: ReadonlyArray<string>): Map<string, Exported[]> {
  const files = entries.map((entry) => join(repository, entry));
  const config = ts.getParsedCommandLineOfConfigFile(
    join(repository, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const deprecated = (symbol: ts.Symbol): boolean => {
    const own = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return (own.declarations ?? []).some((declaration) => ts.getJSDocDeprecatedTag(declaration) !== undefined);
  };
  return new Map(
    entries.map((entry, index) => {
      const source = program.getSourceFile(files[index] as string);
      const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
      if (module === undefined) throw new Error(`${entry} is not a module`);
      return [
        entry,
        checker.getExportsOfModule(module).map((symbol) => {
          const own = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
          return {
            name: symbol.getName(),
            deprecated: deprecated(symbol),
            doc: ts.displayPartsToString(own.getDocumentationComment(checker)).trim(),
            example: (own.declarations ?? []).some((declaration) => ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'example')),
          };
        }),
      ];
    }),
  );
}

const entries = exportsOf(
  'lib/index.ts',
  'lib/lambda/index.ts',
  'lib/outbox/index.ts',
  'lib/erasure/index.ts',
  'lib/kms/index.ts',
  'lib/types/index.ts',
  'lib/reactions/index.ts',
  'lib/scheduler/index.ts',
  'lib/testing/index.ts',
);
const namesOf = (entry: string) => (entries.get(entry) ?? []).map(({ name }) => name);

test(`the root exports at most ${ROOT_NAMES_AT_MOST} names, types and deprecated names included`, () => {
  const names = entries.get('lib/index.ts') ?? [];
  expect(names.length).toBeGreaterThan(0);
  expect(names.length).toBeLessThanOrEqual(ROOT_NAMES_AT_MOST);
  // The Lambda handlers (deprecated in the root until the next minor version) and the AppendRetry type.
  expect(names.filter(({ deprecated }) => deprecated).map(({ name }) => name)).toContain('lambdaHandler');
});

test("the root shares with 'dynafold/lambda' only the deprecated handler names, and nothing with the outbox's, personal data's or the types' entry points", () => {
  const inRoot = new Set(namesOf('lib/index.ts'));
  const deprecatedInRoot = new Set((entries.get('lib/index.ts') ?? []).filter(({ deprecated }) => deprecated).map(({ name }) => name));
  expect(namesOf('lib/lambda/index.ts').filter((name) => inRoot.has(name) && !deprecatedInRoot.has(name))).toEqual([]);
  const features = [
    'lib/outbox/index.ts',
    'lib/erasure/index.ts',
    'lib/kms/index.ts',
    'lib/types/index.ts',
    'lib/reactions/index.ts',
    'lib/scheduler/index.ts',
  ].flatMap(namesOf);
  expect(features.filter((name) => inRoot.has(name))).toEqual([]);
});

test("'dynafold/outbox' exports the relay, its defaults and the outbox table's definition", () => {
  expect(Object.keys(outbox).sort()).toEqual(['OutboxRelay', 'OutboxRelayDefaults', 'outboxTableDefinition']);
  expect(namesOf('lib/outbox/index.ts')).toEqual(expect.arrayContaining(['OutboxOptions', 'OutboxMessage', 'OutboxRelayOptions', 'RelayResult']));
});

test("'dynafold/erasure' exports the subject keys, their providers and table, and the types of a stream's personalData; the root its errors", () => {
  expect(Object.keys(erasure).sort()).toEqual(['LocalKeyProvider', 'SubjectKeys', 'SubjectKeysDefaults', 'subjectKeysTableDefinition']);
  expect(namesOf('lib/erasure/index.ts')).toEqual(expect.arrayContaining(['PersonalDataOptions', 'KeyProvider', 'ForgetResult']));
  expect(namesOf('lib/index.ts')).toEqual(expect.arrayContaining(['SubjectForgottenError', 'KeyProviderError']));
});

test("'dynafold/types' holds types alone, the ones the root's signatures name", () => {
  expect(Object.keys(types)).toEqual([]);
  expect(namesOf('lib/types/index.ts')).toEqual(expect.arrayContaining(['WaitForOptions', 'RetryOptions', 'OlderEventVersion', 'KeyValues']));
  // Compiles only while the options of the root's calls take these types.
  const retry: types.RetryOptions = { attempts: 2 };
  const options: root.AppendOptions = { retry };
  const filter: Record<string, unknown> = lambda.eventFilterPattern(['Order']);
  expect([options.retry?.attempts, typeof filter]).toEqual([2, 'object']);
});

test("'dynafold/reactions' exports reactions, workflows, their effects, the reactions table and the timers on DynamoDB", () => {
  expect(Object.keys(reactions).sort()).toEqual([
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
  ]);
  expect(namesOf('lib/reactions/index.ts')).toEqual(expect.arrayContaining(['ReactionOptions', 'WorkflowOptions', 'Effect', 'FiredTimer', 'Clock']));
});

test("'dynafold/scheduler' exports the EventBridge Scheduler adapter and its handler", () => {
  expect(Object.keys(scheduler).sort()).toEqual(['SchedulerTimers', 'SchedulerTimersDefaults', 'scheduleName', 'schedulerTimerHandler']);
});

test("'dynafold/testing' exports the reactions' spec and the clock a test moves", () => {
  expect(namesOf('lib/testing/index.ts')).toEqual(
    expect.arrayContaining([
      'reactionSpec',
      'TestClock',
      'ReactionSpec',
      'ReactionSpecOptions',
      'ReactionSpecResult',
      'GivenEvents',
      'ExpectedEvents',
    ]),
  );
});

test('every export of the reactions, the scheduler and the test kit has TSDoc; their functions and classes an example', () => {
  const undocumented = ['lib/reactions/index.ts', 'lib/scheduler/index.ts', 'lib/testing/index.ts'].flatMap((entry) =>
    (entries.get(entry) ?? []).filter(({ doc }) => doc === '').map(({ name }) => `${entry}: ${name}`),
  );
  expect(undocumented).toEqual([]);
  const values = [
    ...Object.keys(reactions).map((name) => ['lib/reactions/index.ts', name]),
    ...Object.keys(scheduler).map((name) => ['lib/scheduler/index.ts', name]),
  ];
  const withoutExample = values.filter(
    ([entry, name]) =>
      typeof (entry === 'lib/scheduler/index.ts' ? scheduler : reactions)[name as never] === 'function' &&
      !(entries.get(entry as string) ?? []).find((exported) => exported.name === name)?.example,
  );
  expect(withoutExample).toEqual([]);
});
