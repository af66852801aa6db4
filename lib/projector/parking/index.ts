// Parking, above the engine: the policy (policy), the records a row keeps of its failures, of being parked
// and of events skipped, and how every write carries them (records: the engine's record strategy), the
// updates that count a failure, park a row and note how far its events reached (updates, through the
// engine's one write path), and the replay of a parked row, an operation of its own (replay). The
// operations reach the policy through their failure hook.
export { countsTowardsParking } from './policy';
export type { ParkingPolicy, ParkingRuntime } from './policy';
export { parkedOf, rebuiltRecords, rowRecords } from './records';
export { countFailure, noteParkedEvents, parkedRows } from './updates';
export { listParked, parkedEvents, replayParked, retryParkedRows } from './replay';
