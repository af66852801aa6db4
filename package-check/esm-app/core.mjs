// The core subpaths through import (the ESM build).
export * from 'dynafold';
export * as feed from 'dynafold/feed';
export * as local from 'dynafold/local';
