import type { ValidationIssue } from '../errors';

/** DynamoDB's limits on values in a map attribute, and on what the SDK reads back as a plain number. */
const SMALLEST_NUMBER = 1e-130;
const MAX_DEPTH = 32;

type Path = ReadonlyArray<string | number>;

/**
 * Where a value stops being plain JSON data: anything JSON would change on the way (a Date becomes a
 * string, a Map or Set an empty object, NaN null) or can't write at all (a bigint). Such data is stored
 * fine and then fails to read, so it is refused before anything is written.
 */
export function jsonIssues(value: unknown, path: Path): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  walk(value, path, issues, false, 0);
  return issues;
}

/**
 * Where plain JSON data can't be stored as DynamoDB attributes (a map): numbers beyond ±2^53 (the SDK
 * reads them back as bigints) or smaller than 1e-130, empty field names, nesting past 32 levels, besides
 * everything {@link jsonIssues} finds.
 */
export function attributeIssues(value: unknown, path: Path): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  walk(value, path, issues, true, 0);
  return issues;
}

/** `data.at: is a Date …; data.n: …`: issues as one sentence for a message. */
export function describeDataIssues(issues: ReadonlyArray<ValidationIssue>): string {
  return issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ');
}

function walk(value: unknown, path: Path, issues: ValidationIssue[], attributes: boolean, depth: number): void {
  if (issues.length >= 10) return;
  const problem = (message: string) => issues.push({ path, message });
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) return void problem(`is ${value}, which JSON turns into null`);
      if (attributes && Math.abs(value) > Number.MAX_SAFE_INTEGER)
        return void problem(`is ${value}, beyond ±2^53: DynamoDB would hand it back as a bigint`);
      if (attributes && value !== 0 && Math.abs(value) < SMALLEST_NUMBER)
        return void problem(`is ${value}, smaller than DynamoDB's smallest number 1e-130`);
      return;
    case 'bigint':
      return void problem("is a bigint, which JSON can't write: store it as a string");
    case 'undefined':
      return void problem('is undefined, which JSON leaves out');
    case 'function':
    case 'symbol':
      return void problem(`is a ${typeof value}, which JSON leaves out`);
  }
  if (value === null) return;
  if (attributes && depth >= MAX_DEPTH) return void problem(`is nested deeper than DynamoDB's ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    value.forEach((member, index) => walk(member, [...path, index], issues, attributes, depth + 1));
    return;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) {
    const kind = (value as { constructor?: { name?: string | undefined } | undefined }).constructor?.name ?? 'object';
    const hint =
      value instanceof Date
        ? ', which JSON turns into a string: store an ISO string (z.iso.datetime()) or a number'
        : ', which JSON does not keep: store plain objects, arrays and values';
    return void problem(`is a ${kind}${hint}`);
  }
  for (const [field, member] of Object.entries(value as Record<string, unknown>)) {
    if (member === undefined) continue; // JSON leaves the field out, as an optional field reads it
    if (attributes && field === '') problem("has an empty field name, which a DynamoDB map can't hold");
    walk(member, [...path, field], issues, attributes, depth + 1);
  }
}
