/**
 * `dynafold/erasure`: personal data and its erasure. A stream's `personalData` option
 * (`PersonalDataOptions`) declares which fields are whose; `SubjectKeys` holds a data key per subject in a
 * table made with `subjectKeysTableDefinition`, wrapped by a key provider (`LocalKeyProvider` for tests and
 * DynamoDB Local, `KmsKeyProvider` from `dynafold/kms` in production), and `forget(subject)` deletes one for
 * good. Its errors are exported by `dynafold` with every other. This file is the subpath's public API.
 *
 * The store knows personal data only through a port (`lib/store/personal`): the hooks that seal and open it
 * come from a stream's `personalData.keys`, so the code here (key management, the declaration's checks, the
 * cipher) is loaded by an app that imports this subpath, and by no other.
 */
export { SubjectKeys } from './subject-keys';
export type { SubjectKeysOptions, ForgetResult, KeyReadStats } from './subject-keys';
export { SubjectKeysDefaults } from './defaults';
export { LocalKeyProvider } from './key-provider';
export type { KeyProvider, LocalKeyProviderOptions, NewDataKey } from './key-provider';
export { subjectKeysTableDefinition } from './key-table';
export type { PersonalDataOptions, PersonalDeclaration, PersonalFields, SubjectSource } from './personal-data-options';
