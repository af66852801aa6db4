// Parking, above the engine: the policy (policy), the updates that count a failure, park a row and note
// how far its events reached (updates), and the replay of a parked row, an operation of its own (replay).
// The records a parked row keeps are the engine's bookkeeping (engine/row-marks); the operations reach the
// policy through their failure hook.
export { countsTowardsParking } from './policy';
export { countFailure, noteParkedEvents, parkedRows, recordFailure } from './updates';
export { listParked, parkedEvents, replayParked, retryParkedRows } from './replay';
