import type { z } from 'zod';

/** What a schema's output may be, as far as a subject id cares: a string, nothing (null, undefined), or a kind of value that is no string. */
type OutputKind = 'string' | 'nothing' | 'unknown' | (string & {});

/** Wrappers whose output is their inner schema's (or nothing). */
const passThrough = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

/** Schemas whose output this can't tell without running them: a transform's, a custom check's, `any` and `unknown`. */
const opaque = new Set(['any', 'unknown', 'custom', 'transform', 'intersection']);

/**
 * The kinds of value that are no string (`number`, `object`, …) a zod schema may output, besides null and
 * undefined: none for `z.string()` and its formats, refinements, literals, enums, unions and wrappers of
 * them; `['nothing']` for a schema that outputs nothing else. A schema whose output can't be told without
 * running it (a transform, `z.custom()`, `z.any()`) counts as a string: its values are checked as they come.
 * Reads the schema's definition (`_zod.def`), the same in every zod 4.
 */
export function nonStringOutputs(schema: z.ZodType): string[] {
  const kinds = outputKinds(schema, 0);
  if (kinds.has('string') || kinds.has('unknown')) return [...kinds].filter((kind) => kind !== 'string' && kind !== 'unknown' && kind !== 'nothing');
  const others = [...kinds].filter((kind) => kind !== 'nothing');
  return others.length > 0 ? others : ['nothing'];
}

/** Lazy schemas may refer to themselves: past this depth, the output counts as unknown. */
const MAX_DEPTH = 16;

function outputKinds(schema: z.ZodType, depth: number): Set<OutputKind> {
  const def = (schema as unknown as { _zod?: { def?: Definition } })._zod?.def;
  if (def === undefined || depth > MAX_DEPTH) return new Set(['unknown']);
  const type = def.type;
  if (type === 'string' || type === 'template_literal') return new Set(['string']);
  if (type === 'null' || type === 'undefined' || type === 'void' || type === 'never') return new Set(['nothing']);
  if (opaque.has(type)) return new Set(['unknown']);
  if (passThrough.has(type) && def.innerType !== undefined) return outputKinds(def.innerType, depth + 1);
  if (type === 'pipe' && def.out !== undefined) return outputKinds(def.out, depth + 1);
  if (type === 'lazy' && def.getter !== undefined) return outputKinds(def.getter(), depth + 1);
  if (type === 'union' && def.options !== undefined) {
    return new Set(def.options.flatMap((option) => [...outputKinds(option, depth + 1)]));
  }
  if (type === 'literal' && def.values !== undefined) return new Set(def.values.map(valueKind));
  if (type === 'enum' && def.entries !== undefined) return new Set(Object.values(def.entries).map(valueKind));
  return new Set([type]);
}

function valueKind(value: unknown): OutputKind {
  return value === null || value === undefined ? 'nothing' : typeof value;
}

/** The parts of a zod 4 schema's definition this reads; each kind of schema has some of them. */
interface Definition {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly out?: z.ZodType;
  readonly getter?: () => z.ZodType;
  readonly options?: ReadonlyArray<z.ZodType>;
  readonly values?: ReadonlyArray<unknown>;
  readonly entries?: Readonly<Record<string, unknown>>;
}
