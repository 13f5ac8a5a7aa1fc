import { readFileSync } from 'node:fs'
import type { Postings } from '../job-match-data.js'

/**
 * The loops of job matching that visit every posting of a job's skills, in WebAssembly.
 *
 * Why not JavaScript: scoring a job adds a bound to a scattered element of a typed array for
 * each of some 40,000 postings. After every typed-array store V8's optimiser forgets what it knew
 * about the other arrays, so each iteration checks their maps and reloads their lengths and data
 * pointers again: the same loop is two to three times slower in JavaScript than here, where
 * memory is one linear buffer and a load is one instruction (the words of four postings
 * are decoded together with SIMD, WebAssembly 2.0's fixed-width vectors). Only bounds are
 * computed here (the exact scores are summed in JavaScript from the employees' profiles), so
 * nothing in this module decides a score; the bounds are single precision (half the memory to
 * sweep and to zero), which the scorer allows for by lowering its bar.
 *
 * A call walks postings of one skill that share a level (postings are grouped so by level within
 * a skill, job-index.ts), so that the factor of the job's row is one number for the call: a
 * posting costs the load of its word, its bound and the store, with four decoded and multiplied
 * together, instead of a factor looked up per posting by its level (docs/benchmarks.md).
 *
 * Memory (one per thread and index, not shared): the index's posting words, then the bounds
 * (one f32 per employee), then room for the candidates of one scanned chunk.
 *
 * The loops are written in WebAssembly text, posting-kernel.wat beside this file; the build
 * compiles it into posting-kernel.wasm (tools/compile-kernel.mjs), which is loaded from here.
 */

/** Postings scanned per call: the bar may rise between calls (when the top k is full). */
export const SCAN_CHUNK = 1024

interface KernelExports {
  walk(
    entries: number,
    p: number,
    end: number,
    factor: number,
    bounds: number,
    shift: number,
    steps: number,
  ): void
  scan(
    entries: number,
    p: number,
    end: number,
    bounds: number,
    shift: number,
    bar: number,
    out: number,
  ): number
  clear(entries: number, p: number, end: number, bounds: number, shift: number): void
  walkScan(
    entries: number,
    p: number,
    end: number,
    factor: number,
    bounds: number,
    shift: number,
    steps: number,
    bar: number,
    out: number,
  ): number
}

/** The part of the WebAssembly API used here (TypeScript's ES libraries do not declare it). */
interface WebAssemblyApi {
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer }
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: unknown }
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly

let compiled: object | undefined

/**
 * The posting loops of one index in one thread: a copy of the posting words and the employees'
 * bounds in WebAssembly memory. Every job leaves the bounds at 0 (`clear`).
 */
export class PostingKernel {
  /** Per employee: the bound of the job being scored, −∞ once taken as a candidate. */
  readonly bounds: Float32Array
  /** The candidates of the last `scan`. */
  readonly found: Int32Array
  private readonly code: KernelExports
  private readonly entriesAt = 0
  private readonly boundsAt: number
  private readonly foundAt: number

  constructor(
    private readonly postings: Postings,
    employeeCount: number,
  ) {
    const entries = postings.entry.length
    this.boundsAt = align(entries * 4)
    this.foundAt = this.boundsAt + align(employeeCount * 4)
    const bytes = this.foundAt + SCAN_CHUNK * 4
    const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) })
    compiled ??= new wasm.Module(readFileSync(new URL('./posting-kernel.wasm', import.meta.url)))
    this.code = new wasm.Instance(compiled, { env: { memory } }).exports as KernelExports
    new Uint32Array(memory.buffer, this.entriesAt, entries).set(postings.entry)
    this.bounds = new Float32Array(memory.buffer, this.boundsAt, employeeCount)
    this.found = new Int32Array(memory.buffer, this.foundAt, SCAN_CHUNK)
  }

  /** Adds `factor · strength steps` of postings [p, end) to their employees' bounds. */
  walk(p: number, end: number, factor: number): void {
    const { shift, strengthSteps } = this.postings
    this.code.walk(this.entriesAt, p, end, factor, this.boundsAt, shift, strengthSteps)
  }

  /**
   * Takes the employees of postings [p, end) (at most SCAN_CHUNK) whose bound reaches `bar` into
   * `found` (their bounds become −∞); returns how many.
   */
  scan(p: number, end: number, bar: number): number {
    return this.code.scan(this.entriesAt, p, end, this.boundsAt, this.postings.shift, bar, this.foundAt)
  }

  /**
   * `walk` and `scan` in one pass over postings [p, end) (at most SCAN_CHUNK): adds each
   * posting's term to its employee's bound and takes the employee into `found` once the bound
   * reaches `bar`; returns how many were taken. Bounds only grow, so an employee whose final bound
   * reaches the bar is taken at the latest at its last posting walked this way.
   */
  walkScan(p: number, end: number, factor: number, bar: number): number {
    const { shift, strengthSteps } = this.postings
    return this.code.walkScan(
      this.entriesAt,
      p,
      end,
      factor,
      this.boundsAt,
      shift,
      strengthSteps,
      bar,
      this.foundAt,
    )
  }

  /** Sets the bounds of skill `skill`'s employees back to 0. */
  clear(skill: number): void {
    const { start, shift } = this.postings
    this.code.clear(this.entriesAt, start[skill] as number, start[skill + 1] as number, this.boundsAt, shift)
  }
}

const align = (bytes: number) => Math.ceil(bytes / 64) * 64

const kernels = new WeakMap<Postings, PostingKernel>()

/** This thread's kernel for an index's postings, made on first use. */
export function postingKernel(postings: Postings, employeeCount: number): PostingKernel {
  let kernel = kernels.get(postings)
  if (!kernel) {
    kernel = new PostingKernel(postings, employeeCount)
    kernels.set(postings, kernel)
  }
  return kernel
}
