import { ExitCodes } from './exit-codes';

/**
 * Calls `handler` on the first Ctrl-C (SIGINT) or SIGTERM, and exits at once on the second. The listeners
 * stay for the life of the process (one command per process): a listener removed after its first call
 * could leave a signal relayed a moment later with no listener, which kills the process.
 */
export function onInterrupt(handler: () => void): void {
  let interrupts = 0;
  const listener = () => {
    interrupts++;
    if (interrupts === 1) handler();
    else process.exit(ExitCodes.interrupted);
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
}
