import { ConfigurationError } from '../errors';
import { requireNumber, requireText } from './validate';

/**
 * Let DynamoDB TTL delete an item `durationMs` after it was written: the item carries its expiry (epoch
 * seconds) in `attribute`, on which TTL must be enabled for the table.
 *
 * @example
 * ```ts
 * new EventStream({ ...options, idempotencyTtl: { durationMs: 7 * 86_400_000 } })
 * new Projection({ ...options, tombstoneTtl: { durationMs: 30 * 86_400_000, attribute: 'expiresAt' } })
 * ```
 */
export interface Ttl {
  /** How long the item is kept, in ms. */
  readonly durationMs: number;
  /** The attribute holding the expiry. @defaultValue `ttl` */
  readonly attribute?: string | undefined;
}

/** A {@link Ttl} with its attribute resolved. */
export interface ResolvedTtl {
  readonly durationMs: number;
  readonly attribute: string;
}

/** What a kind of item allows of its TTL. */
export interface TtlRules {
  /** The shortest duration, in ms, and how to say it. */
  readonly minMs: number;
  readonly minLabel?: string | undefined;
  /** The attribute when none is given. */
  readonly attribute: string;
  /** Whether another attribute may be chosen (a fixed table definition says no). @defaultValue true */
  readonly attributeChoosable?: boolean | undefined;
  /** Attributes the item already uses for something else. */
  readonly reserved?: ReadonlyArray<string> | undefined;
}

/** Validates a TTL option and applies its default attribute; throws `ConfigurationError` naming the field. */
export function resolveTtl(option: string, ttl: Ttl, rules: TtlRules, where?: string): ResolvedTtl {
  const durationMs = requireNumber(`${option}.durationMs`, ttl.durationMs, rules.minMs, { minLabel: rules.minLabel, where });
  if (ttl.attribute === undefined) return { durationMs, attribute: rules.attribute };
  const prefix = where === undefined ? '' : `${where}: `;
  if (rules.attributeChoosable === false && ttl.attribute !== rules.attribute) {
    throw new ConfigurationError(`${prefix}\`${option}.attribute\` is always '${rules.attribute}' (the table's TTL attribute): leave it out.`);
  }
  const attribute = requireText(`${option}.attribute`, ttl.attribute, where);
  if (rules.reserved?.includes(attribute) === true) {
    throw new ConfigurationError(`${prefix}expected \`${option}.attribute\` to be an attribute name of its own, such as '${rules.attribute}'.`);
  }
  return { durationMs, attribute };
}
