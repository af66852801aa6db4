// The execute action: a command helper over a stream's load and append (load → decide → append at the
// version loaded), retried from the commit that beat it.
export { execute } from './execute';
export type { CommandOptions, CommandResult } from './execute';
