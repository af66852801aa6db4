import type { CreateTableCommandInput, KeySchemaElement, StreamViewType, TableDescription, TimeToLiveDescription } from '@aws-sdk/client-dynamodb';

/** What an existing table needs to be the one the library would have created, and what cannot be changed in place. */
export interface TableFit {
  /** The stream to enable: the definition has one and the table has none. */
  readonly enableStream: StreamViewType | undefined;
  /** The attribute to turn TTL on with: wanted, and the table has no TTL. */
  readonly enableTtl: string | undefined;
  /** What only a different table fixes: another key, a stream of another view, a missing index, TTL on another attribute. */
  readonly problems: ReadonlyArray<string>;
}

/** `pk (HASH), sk (RANGE)` */
function keyText(key: ReadonlyArray<KeySchemaElement> | undefined): string {
  return (key ?? []).map((element) => `${element.AttributeName} (${element.KeyType})`).join(', ');
}

/** `pk (HASH, S)`: a key with its attribute types, to compare. */
function typedKey(key: ReadonlyArray<KeySchemaElement> | undefined, attributes: CreateTableCommandInput['AttributeDefinitions']): string {
  const typeOf = (name: string | undefined) => attributes?.find((attribute) => attribute.AttributeName === name)?.AttributeType;
  return (key ?? []).map((element) => `${element.AttributeName} (${element.KeyType}, ${typeOf(element.AttributeName)})`).join(', ');
}

/** A stream of `have` carries what a consumer of `want` reads: the same view, or both images where the new one is wanted. */
function streamCovers(have: StreamViewType | undefined, want: StreamViewType): boolean {
  return have === want || (want === 'NEW_IMAGE' && have === 'NEW_AND_OLD_IMAGES');
}

function streamProblem(definition: CreateTableCommandInput, table: TableDescription): string | undefined {
  const want = definition.StreamSpecification?.StreamViewType;
  const have = table.StreamSpecification?.StreamEnabled === true ? table.StreamSpecification.StreamViewType : undefined;
  if (want === undefined || have === undefined || streamCovers(have, want)) return undefined;
  // A stream's view cannot change in place, and a new stream leaves its consumers' checkpoints behind: the user decides.
  return `its stream is ${have} where dynafold reads ${want}: disable the stream (its consumers start over on a new one) and run tables create again`;
}

function indexProblems(definition: CreateTableCommandInput, table: TableDescription): string[] {
  return (definition.GlobalSecondaryIndexes ?? []).flatMap((index) => {
    const found = table.GlobalSecondaryIndexes?.find((existing) => existing.IndexName === index.IndexName);
    if (found === undefined) return [`it has no index ${index.IndexName} (${keyText(index.KeySchema)}): add it with UpdateTable`];
    return keyText(found.KeySchema) === keyText(index.KeySchema)
      ? []
      : [`its index ${index.IndexName} is keyed ${keyText(found.KeySchema)} where dynafold needs ${keyText(index.KeySchema)}`];
  });
}

function ttlProblem(ttl: string | undefined, current: TimeToLiveDescription | undefined): string | undefined {
  const status = current?.TimeToLiveStatus;
  if (ttl === undefined || status === undefined || status === 'DISABLED' || current?.AttributeName === ttl) return undefined;
  return `its items expire on ${current?.AttributeName} where dynafold's expire on ${ttl} (a table has one TTL attribute)`;
}

/**
 * Compares an existing table with the definition the library creates it from: a missing stream or TTL can be
 * turned on in place; a different key (or attribute types), stream view, index or TTL attribute cannot.
 */
export function tableFit(
  definition: CreateTableCommandInput,
  table: TableDescription,
  ttl: string | undefined,
  currentTtl: TimeToLiveDescription | undefined,
): TableFit {
  const wantedKey = typedKey(definition.KeySchema, definition.AttributeDefinitions);
  const tableKey = typedKey(table.KeySchema, table.AttributeDefinitions);
  if (tableKey !== wantedKey) {
    // Shown with attribute types only when the names agree (a number key where a string is needed).
    const [have, want] =
      keyText(table.KeySchema) === keyText(definition.KeySchema) ? [tableKey, wantedKey] : [keyText(table.KeySchema), keyText(definition.KeySchema)];
    // Nothing else matters on a table keyed otherwise: every item the library writes would be refused or misplaced.
    return {
      enableStream: undefined,
      enableTtl: undefined,
      problems: [`its key is ${have} where dynafold needs ${want}: name another table in the config, or delete this one and run tables create again`],
    };
  }
  const wantedStream = definition.StreamSpecification?.StreamViewType;
  const problems = [streamProblem(definition, table), ...indexProblems(definition, table), ttlProblem(ttl, currentTtl)];
  return {
    enableStream: table.StreamSpecification?.StreamEnabled === true ? undefined : wantedStream,
    enableTtl: ttl !== undefined && (currentTtl?.TimeToLiveStatus ?? 'DISABLED') === 'DISABLED' ? ttl : undefined,
    problems: problems.filter((problem): problem is string => problem !== undefined),
  };
}
