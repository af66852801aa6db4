/** Defaults of the Fastify plugin and the Express integration, in one place. */
export const ServiceDefaults = {
  /** Problem Details: a dynafold error's `type` is `urn:dynafold:error:<code>`. */
  problems: { typeBase: 'urn:dynafold:error:' },
} as const;
