/**
 * `dynafold/kms`: the AWS KMS key provider for the subject keys of personal data (see `SubjectKeys` in
 * `dynafold/erasure`). Needs `@aws-sdk/client-kms`, an optional peer that `dynafold` itself never loads.
 */
export { KmsKeyProvider } from './kms-key-provider';
export type { KmsKeyProviderOptions } from './kms-key-provider';
