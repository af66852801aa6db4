// Decoding raw stream images with a decoder of your own: it decodes
// synchronously, so the batch's keys are loaded first, in one read.
import { decoder } from 'dynafold';
import type { StreamImage } from 'dynafold/lambda';
import { type customerStream } from './customers.js';

export async function decodeBatch(
  customers: ReturnType<typeof customerStream>,
  images: ReadonlyArray<StreamImage | undefined>,
) {
  const decode = decoder({ Customer: customers });
  await decode.loadKeys(images);
  return images.map((image) => decode(image));
}
