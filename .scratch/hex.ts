import { storedTraceContext, traceContextBytes } from '../lib/telemetry';
const tc = traceContextBytes({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })!;
let sink = 0;
for (let r = 0; r < 8; r++) { const n = 1_000_000; const t = process.hrtime.bigint(); for (let k = 0; k < n; k++) sink += storedTraceContext(tc)!.traceparent.length; console.log(Number(process.hrtime.bigint() - t) / n); }
console.log(sink > 0);
