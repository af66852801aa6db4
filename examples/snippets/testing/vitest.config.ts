// #region config
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { globalSetup: ['dynafold/testing/vitest-global-setup'] },
});
// #endregion config
