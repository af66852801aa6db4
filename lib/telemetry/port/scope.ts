import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Set by the build (tsdown's `define`) to the package's version. Absent where the sources run as they are
 * (jest, tsx), which read it from the repository's package.json instead.
 */
declare const __DYNAFOLD_VERSION__: string | undefined;

/** The version the sources are at, from the package.json three folders up (lib/telemetry/port). */
function sourceVersion(): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * The instrumentation scope of dynafold's spans and instruments: the package's name and version, so that a
 * tracing tool shows which dynafold made a span (`otel.scope.name`, `otel.scope.version`).
 */
export const SCOPE: { readonly name: string; readonly version: string | undefined } = {
  name: 'dynafold',
  version: typeof __DYNAFOLD_VERSION__ === 'string' ? __DYNAFOLD_VERSION__ : sourceVersion(),
};
