import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';

/** How large event data is packed. */
export type CompressionAlgorithm = 'gzip' | 'brotli';

/** Compression of event data above a size threshold, or `false` to store data as a plain map. */
export type CompressionOptions =
  | false
  | {
      /** The `node:zlib` algorithm: `'gzip'`, or `'brotli'` (smaller, slower to write). @defaultValue 'gzip' */
      readonly algorithm?: CompressionAlgorithm | undefined;
      /** Data whose JSON is larger than this many bytes is compressed. @defaultValue 4096 */
      readonly thresholdBytes?: number | undefined;
    };

export function compress(json: string, algorithm: CompressionAlgorithm): Uint8Array {
  const input = Buffer.from(json, 'utf8');
  return algorithm === 'gzip' ? gzipSync(input) : brotliCompressSync(input, { params: { [constants.BROTLI_PARAM_SIZE_HINT]: input.byteLength } });
}

export function decompress(bytes: Uint8Array, algorithm: string): string {
  if (algorithm === 'gzip') return gunzipSync(bytes).toString('utf8');
  if (algorithm === 'brotli') return brotliDecompressSync(bytes).toString('utf8');
  throw new Error(`unknown compression "${algorithm}"`);
}
