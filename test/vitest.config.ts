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
    // DuckDB and the built CLI are heavy; two workers fit the two cores.
    pool: 'forks',
    maxWorkers: 2,
  },
})
