// Compiles the WebAssembly text of the matching kernel (src/matching/kernel/posting-kernel.wat)
// into the binary module that posting-kernel.ts loads from beside itself. `npm run build` runs this
// file, which writes it into dist/src/matching/kernel/; vitest runs `setup` below as its global
// setup, which writes it beside the sources it runs (a file git ignores).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import initWabt from 'wabt'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const KERNEL = join('src', 'matching', 'kernel', 'posting-kernel')

/** The kernel's module in the binary format, from its text (SIMD, WebAssembly 2.0, is used). */
export async function kernelBinary() {
  const wabt = await initWabt()
  const features = { simd: true }
  const module = wabt.parseWat(`${KERNEL}.wat`, readFileSync(join(root, `${KERNEL}.wat`), 'utf8'), features)
  try {
    module.resolveNames()
    module.validate(features)
    return module.toBinary({ log: false, write_debug_names: false }).buffer
  } finally {
    module.destroy()
  }
}

/** Writes the kernel's binary module beside the kernel's module under `base` (the root or dist). */
export async function writeKernel(base) {
  const path = join(base, `${KERNEL}.wasm`)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, await kernelBinary())
  return path
}

/** vitest's global setup: the kernel for the TypeScript sources, compiled from the text as it is now. */
export async function setup() {
  await writeKernel(root)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await writeKernel(join(root, 'dist'))
