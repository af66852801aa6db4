import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCodes } from 'dynafold';
import { ErrorCatalogue } from '../lib/errors/catalogue';

/** The README's error tables (`| Class | code | When |`), as code → the class each row names. */
function documentedErrors(): Map<string, string> {
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const rows = readme.matchAll(/^\| `(\w+)` \| `([\w.]+)` \|/gm);
  return new Map([...rows].map(([, error, code]) => [code as string, error as string]));
}

test("the README's error tables list every code, with its class", () => {
  const documented = documentedErrors();
  const listed = ErrorCodes.map((code) => {
    const error = ErrorCatalogue[code].error;
    // A code that narrows to the base class is raised by a subclass of another subpath (DynamoLocalStartError).
    return [code, error === 'DynafoldError' ? documented.has(code) : documented.get(code) === error];
  });
  expect(listed.filter(([, ok]) => !ok).map(([code]) => code)).toEqual([]);
});
