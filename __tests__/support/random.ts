/** A seeded PRNG and its helpers: the test kit's, so a failing schedule is reproduced from its printed seed. */
export { randomInt, seededRandom, shuffle } from 'dynafold/testing';
