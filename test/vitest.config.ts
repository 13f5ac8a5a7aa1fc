import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    root: '.',
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**', 'dist/**'],
    // The matching kernel's binary module, compiled from its WebAssembly text beside the sources.
    globalSetup: ['tools/compile-kernel.mjs'],
    testTimeout: 150_000,
    hookTimeout: 120_000,
    // Three workers on two cores: much of an end-to-end test waits on the processes it started
    // (the built CLI, servers, Prism), and a third file fills that time.
    pool: 'forks',
    maxWorkers: 3,
  },
})
