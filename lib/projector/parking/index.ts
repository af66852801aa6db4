// Parking, in one place: the policy (policy), the records a row keeps and how every write keeps them and
// is conditioned on them (records), the updates that count a failure, park a row and note how far its
// events reached (updates), and the replay of a parked row (replay).
export { countsTowardsParking, eventRef } from './policy';
export type { PoisonPolicy } from './policy';
export { keptRecords, markParking, parkingCondition, parkingFromItem } from './records';
export type { FailureRecord, ParkedRecord, ParkingRecords, SkippedRecord } from './records';
export { countFailure, noteParkedEvents, parkedRows, recordFailure } from './updates';
export { listParked, parkedEvents, replayParked, retryParkedRows } from './replay';
