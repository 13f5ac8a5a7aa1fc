// Packs each module of src/vendor/ and the package behind it into one file, in place of the
// compiled module tsc wrote to dist/src/vendor/. Node loads one file much faster than the dozens a
// package is made of, and every command pays that at start-up. Run by `npm run build`, after tsc.
import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * zod's messages in 40 languages are 340 KB of its 760: skillhouse writes its own messages (see
 * src/schemas/zod.ts) on zod's English ones, so the bundle keeps English only.
 */
const englishOnly = {
  name: 'zod-english-only',
  setup(context) {
    context.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/zod/v4/')
        ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-locales' }
        : undefined,
    )
    context.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)}`,
      resolveDir: dirname(args.path),
    }))
  },
}

for (const name of ['zod', 'duckdb', 'oclif']) {
  const outfile = join(root, 'dist', 'src', 'vendor', `${name}.js`)
  await build({
    entryPoints: [join(root, 'src', 'vendor', `${name}.ts`)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // The native binding is loaded as the package finds it, for this machine's platform; oclif
    // looks for TypeScript tooling only to run a plugin's sources, which skillhouse never does.
    external: ['@duckdb/node-bindings', 'typescript', 'ts-node', 'tsx'],
    // CommonJS code in the bundle (DuckDB's, oclif's) requires what stays outside: give it a `require`.
    banner: {
      js: "import { createRequire as __vendorRequire } from 'node:module'; const require = __vendorRequire(import.meta.url);",
    },
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [englishOnly],
    logLevel: 'warning',
  })
  // tsc's map describes the module this file replaced.
  rmSync(`${outfile}.map`, { force: true })
}
