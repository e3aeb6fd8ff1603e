import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Skill modules in folders named skillhost-native-import-* are imported by
    // Node itself, not transformed by Vite: the pinned-import tests need Node's
    // module hooks (module.registerHooks) to see every file such a graph loads.
    server: { deps: { external: [/skillhost-native-import-/] } },
    // Sandbox and guest tests spawn real processes and workers; two cores
    // cannot run many such files at once without starving each other.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for an event (a workspace removed, a session closed),
    // not for a duration: its default 1 s would fail on a loaded machine.
    // 20 s stays below the test timeout, so a real hang reports the poll.
    expect: { poll: { timeout: 20_000 } },
    globalSetup: ['test/global-setup.ts'],
    // Fails a test file when a resource it made outlives it (the leak check).
    setupFiles: ['test/helpers/leak-check.ts'],
  },
})
