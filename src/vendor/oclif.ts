/**
 * oclif, as bin/run.js and every command load it. The build packs this module and the ~150
 * modules of @oclif/core and its dependencies behind it into one file (tools/bundle-vendors.mjs):
 * every command, `--version` and `--help` included, pays oclif's load at start-up.
 */

export type { Interfaces } from '@oclif/core'
export { Args, Command, execute, Flags, settings } from '@oclif/core'
