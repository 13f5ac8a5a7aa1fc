#!/usr/bin/env node
// oclif as the commands load it: one file the build packs (src/vendor/oclif.ts).
import { execute, settings } from '../dist/src/vendor/oclif.js'

// The compiled commands (dist/) always run: never look for TypeScript sources to transpile, even
// under NODE_ENV=test or development (bin/dev.js is the way to run the sources).
settings.enableAutoTranspile = false
await execute({ dir: import.meta.url })
