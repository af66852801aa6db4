import { ConfigurationError } from '../errors';
import type { DeclaringStream, PersonalCodec, PersonalDataKeys } from '../personal';

/**
 * The hooks of a stream's `personalData` option (none without one), made by its `keys`: the store knows no
 * more of personal data than their port, and the declaration is checked where it is implemented. Throws
 * `ConfigurationError` naming what to fix.
 */
export function personalDataOf(stream: DeclaringStream, option: unknown): PersonalCodec | undefined {
  if (option === undefined) return undefined;
  const where = `Stream ${stream.name}: \`personalData\``;
  if (typeof option !== 'object' || option === null) throw new ConfigurationError(`${where} must be an object with \`keys\` and \`events\`.`);
  const keys = (option as { readonly keys?: Partial<PersonalDataKeys> | null }).keys;
  if (typeof keys?.personalCodec !== 'function') throw new ConfigurationError(`${where}: expected \`keys\` to be a SubjectKeys.`);
  return keys.personalCodec(stream, option);
}
