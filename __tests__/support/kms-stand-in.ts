import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KMSClient } from '@aws-sdk/client-kms';

/**
 * A KMS client whose requests are answered in this process, by a stand-in for the service: no KMS runs
 * locally, so the real client (its serialisation, its errors) talks to this handler instead of the network.
 * It speaks KMS's JSON protocol for GenerateDataKey and Decrypt, seals data keys under a key of its own
 * bound to the encryption context, as KMS does, and can be told to throttle.
 */
export function kmsStandIn(options: { keyId?: string } = {}): {
  client: KMSClient;
  calls: Map<string, number>;
  throttleNext: (count: number) => void;
} {
  const masterKey = randomBytes(32);
  const keyId = options.keyId ?? 'arn:aws:kms:us-east-1:111122223333:key/stand-in';
  const calls = new Map<string, number>();
  let throttled = 0;
  const context = (encryption: unknown) => JSON.stringify(Object.entries((encryption ?? {}) as Record<string, string>).sort());
  const answer = (statusCode: number, body: unknown) => ({
    response: { statusCode, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: Buffer.from(JSON.stringify(body)) },
  });
  const handle = (target: string, input: Record<string, unknown>) => {
    if (throttled > 0) {
      throttled--;
      return answer(400, { __type: 'ThrottlingException', message: 'Rate exceeded' });
    }
    if (target === 'GenerateDataKey') {
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv).setAAD(Buffer.from(context(input['EncryptionContext'])));
      const blob = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return answer(200, { KeyId: keyId, Plaintext: plaintext.toString('base64'), CiphertextBlob: blob.toString('base64') });
    }
    if (target === 'Decrypt') {
      const blob = Buffer.from(String(input['CiphertextBlob']), 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', masterKey, blob.subarray(0, 12)).setAAD(Buffer.from(context(input['EncryptionContext'])));
        decipher.setAuthTag(blob.subarray(blob.length - 16));
        const plaintext = Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]);
        return answer(200, { KeyId: keyId, Plaintext: plaintext.toString('base64') });
      } catch {
        return answer(400, { __type: 'InvalidCiphertextException', message: 'The ciphertext does not decrypt under this key and context.' });
      }
    }
    return answer(400, { __type: 'UnsupportedOperationException', message: target });
  };
  const client = new KMSClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'stand-in', secretAccessKey: 'stand-in' },
    maxAttempts: 1,
    requestHandler: {
      handle: (request: { headers: Record<string, string>; body?: unknown }) => {
        const target = String(request.headers['x-amz-target']).replace('TrentService.', '');
        calls.set(target, (calls.get(target) ?? 0) + 1);
        const body = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body as Uint8Array);
        return Promise.resolve(handle(target, JSON.parse(body) as Record<string, unknown>));
      },
    } as never,
  });
  return { client, calls, throttleNext: (count) => void (throttled = count) };
}
