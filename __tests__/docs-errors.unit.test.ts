import { ErrorCodes } from 'dynafold';
import { ErrorCatalogue } from '../lib/errors/catalogue';
import { errorCodesPage } from '../docs/scripts/reference-pages';

/** The generated error codes page's table (`| code | class (HTTP status): what to do |`, the code free to wrap after its dots), as code → its row. */
function documentedErrors(): Map<string, { status: number; error: string; summary: string }> {
  const rows = errorCodesPage()
    .replace(/<wbr>/g, '')
    .matchAll(/^\| <code>([\w.]+)<\/code> \| `(\w+)` \(HTTP (\d+)\): (.*) \|$/gm);
  return new Map(
    [...rows].map(([, code, error, status, summary]) => [
      code as string,
      { status: Number(status), error: error as string, summary: summary as string },
    ]),
  );
}

test('the error codes page lists every code, with its status, its class and what to do', () => {
  const documented = documentedErrors();
  const wrong = ErrorCodes.filter((code) => {
    const row = documented.get(code);
    const { status, error } = ErrorCatalogue[code];
    // A code that narrows to the base class is raised by a subclass of another subpath (DynamoLocalStartError).
    return row === undefined || row.status !== status || (error !== 'DynafoldError' && row.error !== error) || row.summary === '';
  });
  expect(wrong).toEqual([]);
  expect(documented.size).toBe(ErrorCodes.length);
});
