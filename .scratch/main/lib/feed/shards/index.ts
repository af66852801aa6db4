// Reading shards: the Streams API with its retries (streams-api, retry), shard lineage and trimmed records
// (lineage, trimmed), where a shard starts (start), one shard's reader (shard-reader), and the shared
// refresh of the shard listing (shared-refresh).
export { canStart, discoveredPosition, newShards, streamEnded } from './lineage';
export type { PlannedShard, ShardInfo, ShardPosition } from './lineage';
export { classifyFailure, retrying } from './retry';
export { readShard } from './shard-reader';
export type { ShardReaderContext } from './shard-reader';
export { SharedRefresh } from './shared-refresh';
export { prepareStart, probe } from './start';
export { StreamsApi } from './streams-api';
export type { StreamSnapshot } from './streams-api';
export { TRIMMED_RETAKES, compareSequenceNumbers, judgeTrimmedRead } from './trimmed';
