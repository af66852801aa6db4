import type { ValidationIssue } from '../errors';
import { ILL_FORMED, isWellFormed } from '../util';

/** What DynamoDB reads back as a plain number: smaller magnitudes are refused. */
const SMALLEST_NUMBER = 1e-130;

/**
 * How deep data may nest. DynamoDB refuses a map or list nested past 32 levels (its documented limit on
 * nested attributes), so deeper event data is stored compressed, as JSON. JSON itself has no limit, but
 * `JSON.stringify`, `JSON.parse` and a schema's parse recurse once a level and run out of stack a few
 * thousand levels down (sooner on a deep call stack): event data and snapshot state nested past
 * 100 levels are refused with a `ValidationError` before anything is sent, whatever their size.
 */
export const DataLimits = {
  /** DynamoDB's limit on nesting in an item, the item's attribute being the first level: 31 maps or lists inside one another in an attribute. */
  attributeDepth: 32,
  /** dynafold's limit on nested objects and arrays in event data and snapshot state, stored compressed past `attributeDepth`. */
  jsonDepth: 100,
} as const;

type Path = ReadonlyArray<string | number>;

/**
 * Where a value stops being plain JSON data: anything JSON would change on the way (a Date becomes a
 * string, a Map or Set an empty object, NaN null) or can't write at all (a bigint). Such data is stored
 * fine and then fails to read, so it is refused before anything is written, as is nesting past
 * `DataLimits.jsonDepth` and a string or field name with a lone surrogate (ill-formed UTF-16), which
 * DynamoDB would store as U+FFFD: the event read back would not be the one appended.
 */
export function jsonIssues(value: unknown, path: Path): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  walk(value, path, issues, false, 0);
  return issues;
}

/**
 * Where plain JSON data can't be stored as DynamoDB attributes: numbers beyond ±2^53 (the SDK reads them
 * back as bigints) or smaller than 1e-130, empty field names, nesting past DynamoDB's 32 levels
 * (`DataLimits.attributeDepth`), besides everything {@link jsonIssues} finds. DynamoDB counts the
 * item's attribute as the first level: `value` is one attribute's (event data, metadata), or with
 * `holds: 'item'` a whole item's fields (a row), whose own members are the first level.
 */
export function attributeIssues(value: unknown, path: Path, holds: 'attribute' | 'item' = 'attribute'): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  walk(value, path, issues, true, holds === 'attribute' ? 1 : 0);
  return issues;
}

/** `data.at: is a Date …; data.n: …`: issues as one sentence for a message. */
export function describeDataIssues(issues: ReadonlyArray<ValidationIssue>): string {
  return issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ');
}

/**
 * A value still to check, where it is (its holder and its field or index there: the path is only spelled
 * out for an issue, most data has none), and how many objects or arrays hold it (for an attribute, the
 * item counts as one).
 */
interface Pending {
  readonly value: unknown;
  readonly holder: Pending | undefined;
  readonly at: string | number | undefined;
  readonly depth: number;
}

/** The path to a pending value: the root's, then each field or index down to it. */
function pathOf(pending: Pending, rootPath: Path): Path {
  const steps: Array<string | number> = [];
  for (let at: Pending | undefined = pending; at?.holder !== undefined; at = at.holder) steps.push(at.at as string | number);
  return [...rootPath, ...steps.reverse()];
}

/**
 * Checks every value depth first, in field order, with a stack of its own rather than recursion: data
 * nested thousands of levels is refused with an issue, not a `RangeError`. Stops at 10 issues.
 */
function walk(root: unknown, rootPath: Path, issues: ValidationIssue[], attributes: boolean, rootDepth: number): void {
  const maxDepth = attributes ? DataLimits.attributeDepth : DataLimits.jsonDepth;
  const stack: Pending[] = [{ value: root, holder: undefined, at: undefined, depth: rootDepth }];
  while (stack.length > 0 && issues.length < 10) {
    const pending = stack.pop() as Pending;
    const { value, depth } = pending;
    const problem = scalarProblem(value, attributes) ?? containerProblem(value, attributes, depth, maxDepth);
    if (problem !== undefined) {
      issues.push({ path: pathOf(pending, rootPath), message: problem });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const before = stack.length;
    if (Array.isArray(value)) {
      value.forEach((member: unknown, index) => stack.push({ value: member, holder: pending, at: index, depth: depth + 1 }));
    } else {
      for (const field in value) {
        if (!Object.hasOwn(value, field)) continue;
        const member = (value as Record<string, unknown>)[field];
        if (member === undefined) continue; // JSON leaves the field out, as an optional field reads it
        if (attributes && field === '')
          issues.push({ path: pathOf(pending, rootPath), message: "has an empty field name, which a DynamoDB map can't hold" });
        if (!isWellFormed(field)) issues.push({ path: pathOf(pending, rootPath), message: `has a field name that ${ILL_FORMED}` });
        stack.push({ value: member, holder: pending, at: field, depth: depth + 1 });
      }
    }
    // Reversed on the stack, so that members are checked in order.
    reverseFrom(stack, before);
  }
}

/** Reverses `items` from `start` to the end, in place. */
function reverseFrom(items: Pending[], start: number): void {
  for (let low = start, high = items.length - 1; low < high; low++, high--) {
    const item = items[low] as Pending;
    items[low] = items[high] as Pending;
    items[high] = item;
  }
}

/** What is wrong with a value that is not an object, if anything. */
function scalarProblem(value: unknown, attributes: boolean): string | undefined {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? undefined : ILL_FORMED;
    case 'number':
      if (!Number.isFinite(value)) return `is ${value}, which JSON turns into null`;
      if (attributes && Math.abs(value) > Number.MAX_SAFE_INTEGER) return `is ${value}, beyond ±2^53: DynamoDB would hand it back as a bigint`;
      if (attributes && value !== 0 && Math.abs(value) < SMALLEST_NUMBER) return `is ${value}, smaller than DynamoDB's smallest number 1e-130`;
      return undefined;
    case 'bigint':
      return "is a bigint, which JSON can't write: store it as a string";
    case 'undefined':
      return 'is undefined, which JSON leaves out';
    case 'function':
    case 'symbol':
      return `is a ${typeof value}, which JSON leaves out`;
    default:
      return undefined;
  }
}

/** What is wrong with an object or array, if anything: too deep, or not plain. */
function containerProblem(value: unknown, attributes: boolean, depth: number, maxDepth: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= maxDepth) {
    return attributes
      ? `is nested deeper than DynamoDB's ${maxDepth} levels`
      : `is nested deeper than ${maxDepth} levels, more than dynafold stores (DataLimits.jsonDepth): flatten the data`;
  }
  if (Array.isArray(value)) return undefined;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Object.prototype || prototype === null) return undefined;
  const kind = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
  const hint =
    value instanceof Date
      ? ', which JSON turns into a string: store an ISO string (z.iso.datetime()) or a number'
      : ', which JSON does not keep: store plain objects, arrays and values';
  return `is a ${kind}${hint}`;
}
