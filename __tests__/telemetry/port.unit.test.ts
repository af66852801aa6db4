/**
 * Every call into OpenTelemetry goes through one port, `lib/telemetry/port`: no other file of lib/ loads
 * the API (in any form of import), and the port's guard keeps what the app's SDK throws from reaching an
 * operation, telling each kind of call that threw once. An operation's own throw still passes through.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { guarded } from '../../lib/telemetry/port/guard';
import { inChildSpan, inSpan } from '../../lib/telemetry';
import { sourceFiles } from '../support/import-graph';
import { registerFaultyTelemetry } from '../support/telemetry';

const root = join(__dirname, '..', '..');
const PORT = 'lib/telemetry/port/';

/** What a file imports, requires or `import()`s, types included. */
function specifiersOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true).importedFiles.map((imported) => imported.fileName);
}

test('only the port loads @opentelemetry/api, and only the port reaches the file that looks it up', () => {
  const files = sourceFiles(root, 'lib');
  const outside = files.filter((file) => !file.startsWith(PORT));
  expect(outside.filter((file) => specifiersOf(file).some((specifier) => specifier.startsWith('@opentelemetry/')))).toEqual([]);
  expect(outside.filter((file) => specifiersOf(file).some((specifier) => /(^|\/)port\/otel-api$|^\.\/otel-api$/.test(specifier)))).toEqual([]);
  // The scan sees the port's own imports of the API.
  expect(files.filter((file) => file.startsWith(PORT) && specifiersOf(file).includes('@opentelemetry/api')).length).toBeGreaterThanOrEqual(3);
});

describe('the guard', () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  afterAll(() => warn.mockRestore());

  test('answers the fallback for a call that throws, and tells each kind of call once', () => {
    const boom = () => {
      throw new Error('boom');
    };
    expect(guarded('end a span', 'fallback', boom)).toBe('fallback');
    expect(guarded('end a span', 'again', boom)).toBe('again');
    expect(guarded('start a span', undefined, boom)).toBeUndefined();
    expect(guarded('start a span', 0, () => 1)).toBe(1);
    const told = warn.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    expect(told.map((entry) => [entry['level'], entry['otelCall'], (entry['error'] as { message: string }).message])).toEqual([
      ['warn', 'end a span', 'boom'],
      ['warn', 'start a span', 'boom'],
    ]);
  });

  test('an operation runs once and its own throw passes through, whatever the SDK throws around it', async () => {
    const sdk = registerFaultyTelemetry((fault) => fault !== 'spanStart');
    try {
      let runs = 0;
      const mine = new Error('mine');
      await expect(
        inSpan({ name: 'op', kind: 'internal' }, () => {
          runs++;
          throw mine;
        }),
      ).rejects.toBe(mine);
      await expect(
        inSpan({ name: 'op', kind: 'internal' }, async (span) => {
          runs++;
          span.set({ a: 1 });
          span.event('e');
          span.link([
            { streamName: 'Order', streamId: 'o-1', version: 1, trace: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } },
          ]);
          span.fail(new Error('marked'));
          return inChildSpan(
            () => ({ name: 'child', kind: 'client' }),
            () => 'done',
          );
        }),
      ).resolves.toBe('done');
      expect(runs).toBe(2);
      expect(sdk.thrown.get('context')).toBeGreaterThan(0);
      expect(sdk.thrown.get('spanCall')).toBeGreaterThan(0);
      expect(sdk.thrown.get('spanEnd')).toBeGreaterThan(0);
    } finally {
      await sdk.shutdown();
    }
  });
});
