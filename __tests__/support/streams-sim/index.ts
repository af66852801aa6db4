/** An AWS-shaped DynamoDB Streams endpoint in process, fed by DynamoDB Local's stream (see BEHAVIOURS.md). */
export { SimClock } from './clock';
export { SimulatedStream } from './simulated-stream';
export { simulateStreams } from './plug';
export { SimulationDefaults, SimulationLimits } from './options';
export type { SimulationFaults, SimulationOptions } from './options';
export type { Reshard } from './topology';
