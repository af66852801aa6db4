/**
 * `@opentelemetry/api`, as the app installed it. Named by an import type, not an import declaration: the
 * build keeps an import declaration in this module's declarations as a bare `import '@opentelemetry/api'`,
 * which a type check of an app without the optional package refuses (TS2882); an import type leaves none.
 */
// eslint-disable-next-line @typescript-eslint/consistent-type-imports -- an import declaration here is what the note above rules out
export type OtelApi = typeof import('@opentelemetry/api');

/**
 * Set by the build (tsdown's `define`): `true` in the ES module output, `false` in the CommonJS one.
 * Absent where the sources run as they are (jest, tsx), which load them as CommonJS.
 */
declare const __DYNAFOLD_ESM__: boolean | undefined;

/** `undefined`: not looked for yet; `null`: the app has no `@opentelemetry/api`. */
let api: OtelApi | null | undefined;
let importing: Promise<void> | undefined;

/**
 * `@opentelemetry/api`, an optional peer dependency, looked for on first use: `undefined` when the app did
 * not install it (then nothing is traced or measured), or while the ES module build is still importing it
 * (see {@link otelReady}). Every call after the first is a variable read.
 *
 * Each build finds it in the way a bundler can follow and a missing package survives: the CommonJS build
 * with a `require` inside a `try` (esbuild bundles it when present and leaves it to fail at run time when
 * absent), the ES module build with an `import()` inside a `try` (likewise). A `require` in the ES module
 * build would resolve from the bundle's folder at run time, missing an API bundled with the app; an
 * `import()` in the CommonJS build becomes a `require` outside the `try`, which fails esbuild's build
 * when the package is absent. The build drops the branch its format does not take.
 */
export function otel(): OtelApi | undefined {
  if (api === undefined) look();
  return api ?? undefined;
}

/** Whether the app has `@opentelemetry/api` (known once it was looked for; see {@link otelReady}). */
export function otelInstalled(): boolean {
  return otel() !== undefined;
}

/**
 * Whether an app registered a tracer provider (an SDK). Without one the API hands out a proxy provider with
 * no delegate, whose spans record nothing and carry no context of their own: dynafold then starts none, so
 * an app that traces nothing pays nothing per operation. Asked on every operation, since an app may
 * register its SDK after dynafold's first use; no allocation when none is registered.
 */
export function tracerRegistered(api: OtelApi, tracer: string): boolean {
  const provider = api.trace.getTracerProvider();
  return !(provider instanceof api.ProxyTracerProvider) || provider.getDelegateTracer(tracer) !== undefined;
}

/**
 * A promise to await once before the first span when the API is still being imported (the ES module
 * build, on first use); `undefined` once it is known whether the app has it.
 */
export function otelReady(): Promise<void> | undefined {
  if (api === undefined) look();
  return api === undefined ? importing : undefined;
}

function look(): void {
  if (typeof __DYNAFOLD_ESM__ === 'boolean' && __DYNAFOLD_ESM__) {
    importing ??= importApi();
    return;
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    api = require('@opentelemetry/api') as OtelApi;
  } catch {
    api = null;
  }
}

async function importApi(): Promise<void> {
  try {
    api = await import('@opentelemetry/api');
  } catch {
    api = null;
  }
}
