#!/usr/bin/env node
import { createRequire } from 'node:module'

// @oclif/core is CommonJS: `require` loads it without the scan of its exports an ES import makes.
const oclif = createRequire(import.meta.url)('@oclif/core')
// The compiled commands (dist/) always run: never look for TypeScript sources to transpile, even
// under NODE_ENV=test or development (bin/dev.js is the way to run the sources).
oclif.settings.enableAutoTranspile = false
await oclif.execute({ dir: import.meta.url })
