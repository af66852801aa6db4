import { ConfigurationError } from '../errors';
import { consoleLogger } from './console-logger';
import { log, type Logger } from './logger';

/** Old names already warned about: a deprecation is logged once per process, not on every use. */
const warned = new Set<string>();

/** Logs, once per process per old name, that it is deprecated and what replaces it. */
export function warnDeprecated(logger: Logger | undefined, oldName: string, replacement: string): void {
  if (warned.has(oldName)) return;
  warned.add(oldName);
  log(
    logger ?? consoleLogger,
    'warn',
    { deprecated: oldName, replacement },
    `\`${oldName}\` is deprecated and goes in the next minor version: use \`${replacement}\` instead`,
  );
}

/** An option under its new name or its deprecated one. */
export interface RenamedOption<New, Old> {
  readonly newName: string;
  readonly newValue: New | undefined;
  readonly oldName: string;
  readonly oldValue: Old | undefined;
  /** The old value in the new shape. */
  readonly map: (old: Old) => New;
  /** How to write the old option anew, for the warning. @defaultValue `newName` */
  readonly replacement?: string | undefined;
}

/**
 * The option's value: the new one, or the old one in the new shape (logging the deprecation once).
 * Both at once is ambiguous: `ConfigurationError`.
 */
export function renamedOption<New, Old>(option: RenamedOption<New, Old>, logger: Logger | undefined, where?: string): New | undefined {
  if (option.oldValue === undefined) return option.newValue;
  if (option.newValue !== undefined) {
    const prefix = where === undefined ? '' : `${where}: `;
    throw new ConfigurationError(`${prefix}\`${option.oldName}\` and \`${option.newName}\` are one option: give only \`${option.newName}\`.`);
  }
  warnDeprecated(logger, option.oldName, option.replacement ?? option.newName);
  return option.map(option.oldValue);
}
