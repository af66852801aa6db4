import fc from 'fast-check';
import { z } from 'zod';
import { ConfigurationError, EventStream, olderVersion } from 'dynafold';
import type { OlderEventVersion } from 'dynafold/types';
import type { SubjectKeys } from 'dynafold/erasure';
import { customerSetupOfFile } from '../support/customer-setup';
import { propertySettings, propertyTimeout } from '../support/delivery';

// A Member's Registered type through one to three versions, each checking `email` with one of three
// schemas (any string, an email, at most 10 characters), upcast by a total function (a value the next
// version refuses becomes one it accepts). Events are appended by the code of random versions, the member
// forgotten or not, then today's code is built with a random replacement for `email`, and random ones of
// its own for some older versions. Either the stream refuses at construction, exactly when a version's
// schema refuses the replacement its events would read with, or every event reads, and folds, as the
// oracle redacts and upcasts it.
const setup = customerSetupOfFile('prop-erasure-versions');

const schemas = {
  text: z.string(),
  email: z.email(),
  short: z.string().max(10),
} as const;
type SchemaKind = keyof typeof schemas;
const kinds = Object.keys(schemas) as SchemaKind[];
const replacements = ['[erased]', 'erased@example.invalid', ''] as const;
/** Valid under every schema: the plaintext, and what an upcast makes of a value the next version refuses. */
const plaintext = 'a@b.io';
const upcastFallback = 'up@b.io';

interface Case {
  /** The schema of `email` at versions 1 to n (today's is the last). */
  readonly versions: ReadonlyArray<SchemaKind>;
  /** The versions of the code that appends, one event each, in order. */
  readonly appendedAt: ReadonlyArray<number>;
  readonly forget: boolean;
  readonly today: string;
  /** Per older version, a replacement of its own under `older`, or none. */
  readonly older: ReadonlyArray<string | undefined>;
}

const cases: fc.Arbitrary<Case> = fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 3 }).chain((versions) =>
  fc.record({
    versions: fc.constant(versions),
    appendedAt: fc.array(fc.integer({ min: 1, max: versions.length }), { minLength: 1, maxLength: 4 }),
    forget: fc.boolean(),
    today: fc.constantFrom(...replacements),
    older: fc.array(fc.option(fc.constantFrom(...replacements), { nil: undefined }), {
      minLength: versions.length - 1,
      maxLength: versions.length - 1,
    }),
  }),
);

const accepts = (kind: SchemaKind, value: unknown) => schemas[kind].safeParse(value).success;

/** Versions 1 to `upTo` − 1 of Registered, each upcast totally to the next. */
function olderVersions(versions: ReadonlyArray<SchemaKind>, upTo: number): OlderEventVersion[] {
  return versions.slice(0, upTo - 1).map((kind, index) => {
    const next = versions[index + 1] as SchemaKind;
    return olderVersion(index + 1, z.object({ name: z.string(), email: schemas[kind] }), (data) => ({
      name: data.name,
      email: accepts(next, data.email) ? data.email : upcastFallback,
    }));
  });
}

/** A value each schema accepts, for writers (their replacements are never read here). */
const acceptedBy = (kind: SchemaKind) => (kind === 'email' ? 'erased@example.invalid' : '[erased]');

/** The Member stream as the code of version `at` defines it, with `today` and `older` as its replacements. */
function memberStream(keys: SubjectKeys, versions: ReadonlyArray<SchemaKind>, at: number, today: string, older: ReadonlyArray<string | undefined>) {
  const subject = { streamId: 'memberId' } as const;
  const olderEntries = Object.fromEntries(
    older.flatMap((replacement, index) => (replacement === undefined ? [] : [[index + 1, { subject, fields: { email: replacement } }]])),
  );
  return new EventStream({
    client: setup.client,
    table: setup.tables.events as string,
    name: 'Member',
    streamId: ['memberId'],
    events: { Registered: z.object({ name: z.string(), email: schemas[versions[at - 1] as SchemaKind] }) },
    versions: { Registered: { older: olderVersions(versions, at) } },
    personalData: {
      keys,
      events: { Registered: { subject, fields: { name: '[erased]', email: today } } },
      older: { Registered: olderEntries },
    },
  });
}

/** What an event stored at `version` reads as today: its email, redacted with that version's replacement when forgotten, then upcast. */
function expectedEmail(c: Case, version: number, effective: (version: number) => string): string {
  let email = c.forget ? effective(version) : plaintext;
  for (let next = version + 1; next <= c.versions.length; next++) {
    if (!accepts(c.versions[next - 1] as SchemaKind, email)) email = upcastFallback;
  }
  return email;
}

let runs = 0;

test(
  'a forgotten subject’s events stored at any version read and fold, or the stream refuses at construction naming the version',
  async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const memberId = `m-${++runs}`;
        const keys = setup.keys();
        for (const at of c.appendedAt) {
          const writerOlder = c.versions.slice(0, at - 1).map(acceptedBy);
          const writer = memberStream(keys, c.versions, at, acceptedBy(c.versions[at - 1] as SchemaKind), writerOlder);
          await writer.append({ memberId }, [{ type: 'Registered', data: { name: 'Ada', email: plaintext } }]);
        }
        if (c.forget) await keys.forget(memberId);

        const n = c.versions.length;
        const effective = (version: number) => (version === n ? c.today : (c.older[version - 1] ?? c.today));
        const refused = c.versions.flatMap((kind, index) => (accepts(kind, effective(index + 1)) ? [] : [index + 1]));
        const build = () => memberStream(setup.keys(), c.versions, n, c.today, c.older);
        if (refused.length > 0) {
          expect(build).toThrow(ConfigurationError);
          const message = (() => {
            try {
              build();
              return '';
            } catch (error) {
              return (error as Error).message;
            }
          })();
          // It names a version whose replacement is refused: today's, or where to declare an older one's.
          const names = (version: number) =>
            message.includes(version === n ? "`events.Registered`: the field `email`'s schema refuses" : `\`older.Registered.${version}\``);
          expect(refused.some(names)).toBe(true);
          return;
        }
        const Members = build();
        const events = await Members.read({ memberId });
        expect(events.map((event) => event.data)).toEqual(
          c.appendedAt.map((at) => ({ name: c.forget ? '[erased]' : 'Ada', email: expectedEmail(c, at, effective) })),
        );
        const folded = await Members.load({ memberId }, { initial: [] as string[], evolve: (seen, event) => [...seen, event.data.email] });
        expect(folded.state).toEqual(events.map((event) => event.data.email));
      }),
      propertySettings(60),
    );
  },
  propertyTimeout(60),
);
