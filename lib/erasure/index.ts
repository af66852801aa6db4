/**
 * `dynafold/erasure`: personal data and its erasure. A stream's `personalData` option
 * (`PersonalDataOptions`) declares which fields are whose; `SubjectKeys` holds a data key per subject in a
 * table made with `subjectKeysTableDefinition`, wrapped by a key provider (`LocalKeyProvider` for tests and
 * DynamoDB Local, `KmsKeyProvider` from `dynafold/kms` in production), and `forget(subject)` deletes one for
 * good. Its errors are exported by `dynafold` with every other. This file is the subpath's public API. It
 * loads nothing the root entry does not.
 */
export { SubjectKeys, SubjectKeysDefaults, LocalKeyProvider, subjectKeysTableDefinition } from '../store';
export type { SubjectKeysOptions, ForgetResult, KeyReadStats, KeyProvider, LocalKeyProviderOptions, NewDataKey } from '../store';
export type { PersonalDataOptions, PersonalDeclaration, PersonalFields, SubjectSource } from '../store';
