import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Sandbox and guest tests spawn real processes and workers; two cores
    // cannot run many such files at once without starving each other.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    globalSetup: ['test/global-setup.ts'],
    // Fails a test file when a resource it made outlives it (the leak check).
    setupFiles: ['test/helpers/leak-check.ts'],
  },
})
