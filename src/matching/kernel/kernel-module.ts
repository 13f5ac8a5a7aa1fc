import { signedLeb, unsignedLeb } from './leb128.js'

/**
 * The WebAssembly module of the posting loops (posting-kernel.ts), assembled here from its
 * instructions: the byte table below is the whole of its code.
 */

/** The module's code, assembled from the instructions below (WebAssembly binary format, with SIMD). */
export function moduleBytes(): Uint8Array {
  const I32 = 0x7f
  const F32 = 0x7d
  const get = (local: number) => [0x20, local]
  const set = (local: number) => [0x21, local]
  const tee = (local: number) => [0x22, local]
  const i32 = (value: number) => [0x41, ...signedLeb(value)]
  const LOAD_I32 = [0x28, 2, 0]
  const LOAD_F32 = [0x2a, 2, 0]
  const STORE_I32 = [0x36, 2, 0]
  const STORE_F32 = [0x38, 2, 0]
  const [ADD, SUB, AND, SHL, SHR_U, LT_U, GE_U] = [0x6a, 0x6b, 0x71, 0x74, 0x76, 0x49, 0x4f]
  const [F32_ADD, F32_MUL, F32_GE, F32_FROM_U32] = [0x92, 0x94, 0x60, 0xb3]
  const V128 = 0x7b
  const simd = (op: number, ...immediates: number[]) => [0xfd, ...unsignedLeb(op), ...immediates]
  const V128_LOAD = simd(0x00, 2, 0)
  const I32X4_SPLAT = simd(0x11)
  const I32X4_LANE = (lane: number) => simd(0x1b, lane)
  const F32X4_LANE = (lane: number) => simd(0x1f, lane)
  const V128_AND = simd(0x4e)
  const I32X4_SHL = simd(0xab)
  const I32X4_SHR_U = simd(0xad)
  const I32X4_ADD = simd(0xae)
  const F32X4_FROM_U32X4 = simd(0xfb)
  const F32X4_SPLAT = simd(0x13)
  const F32X4_MUL = simd(0xe6)
  const BLOCK = [0x02, 0x40]
  const LOOP = [0x03, 0x40]
  const IF = [0x04, 0x40]
  const END = 0x0b
  const BR_IF = (depth: number) => [0x0d, depth]
  const f32 = (value: number) => {
    const bytes = new DataView(new ArrayBuffer(4))
    bytes.setFloat32(0, value, true)
    return [0x43, ...new Uint8Array(bytes.buffer)]
  }
  // The address of bounds[entries[p] >>> shift]: bounds + (word >>> shift) · 4.
  const boundOf = (bounds: number, word: number[], shift: number) => [
    ...get(bounds),
    ...word,
    ...get(shift),
    SHR_U,
    ...i32(2),
    SHL,
    ADD,
  ]
  const wordAt = (entries: number, p: number) => [
    ...get(entries),
    ...get(p),
    ...i32(2),
    SHL,
    ADD,
    ...LOAD_I32,
  ]
  // Loop p over [p, end): the body, then p += step while p < end.
  const postingLoop = (p: number, end: number, body: number[], step = 1) => [
    ...BLOCK,
    ...get(p),
    ...get(end),
    GE_U,
    ...BR_IF(0),
    ...LOOP,
    ...body,
    ...get(p),
    ...i32(step),
    ADD,
    ...tee(p),
    ...get(end),
    LT_U,
    ...BR_IF(0),
    END,
    END,
  ]

  // The walks below share these parameters: entries, p, end, factor (f32), bounds, shift, steps;
  // then their own. A call walks postings of one level of one skill, whose factor is the same.
  const [ENTRIES, P, END_AT, FACTOR, BOUNDS, SHIFT, STEPS] = [0, 1, 2, 3, 4, 5, 6]
  // Posting p's bound: leaves its address and its new value (bound + factor · steps) on the
  // stack; the word is kept in `word`, the address in `at`.
  const postingUpdate = (word: number, at: number) => [
    ...wordAt(ENTRIES, P),
    ...set(word),
    ...boundOf(BOUNDS, get(word), SHIFT),
    ...tee(at),
    ...get(at),
    ...LOAD_F32,
    ...get(word),
    ...get(STEPS),
    AND,
    F32_FROM_U32,
    ...get(FACTOR),
    F32_MUL,
    F32_ADD,
  ]
  // mid = p + (end − p) rounded down to a multiple of 4: postings [p, mid) go four at a time.
  const quadEnd = (mid: number) => [
    ...get(END_AT),
    ...get(P),
    SUB,
    ...i32(-4),
    AND,
    ...get(P),
    ADD,
    ...set(mid),
  ]
  // Postings p … p + 3 at once (SIMD): their bounds' addresses into `addresses`, their terms
  // (factor · strength in steps, f32) into `terms`.
  const decodeFour = (addresses: number, terms: number) => [
    ...get(ENTRIES),
    ...get(P),
    ...i32(2),
    SHL,
    ADD,
    ...V128_LOAD,
    ...tee(terms),
    ...get(SHIFT),
    ...I32X4_SHR_U,
    ...i32(2),
    ...I32X4_SHL,
    ...get(BOUNDS),
    ...I32X4_SPLAT,
    ...I32X4_ADD,
    ...set(addresses),
    ...get(terms),
    ...get(STEPS),
    ...I32X4_SPLAT,
    ...V128_AND,
    ...F32X4_FROM_U32X4,
    ...get(FACTOR),
    ...F32X4_SPLAT,
    ...F32X4_MUL,
    ...set(terms),
  ]
  // Lane `lane` of a decoded four, like postingUpdate: its address and new value on the stack.
  const laneUpdate = (lane: number, addresses: number, terms: number, at: number) => [
    ...get(addresses),
    ...I32X4_LANE(lane),
    ...tee(at),
    ...get(at),
    ...LOAD_F32,
    ...get(terms),
    ...F32X4_LANE(lane),
    F32_ADD,
  ]

  // walk(entries, p, end, factor, bounds, shift, steps), locals word, at, mid, addresses, terms:
  //   bounds[word >>> shift] += factor · (word & steps)
  // four postings at a time (their words decoded together), then the last few one by one.
  const [WORD, AT, MID, ADDRESSES, TERMS] = [7, 8, 9, 10, 11]
  const walk = [
    ...unsignedLeb(2),
    3,
    I32,
    2,
    V128,
    ...quadEnd(MID),
    ...postingLoop(
      P,
      MID,
      [
        ...decodeFour(ADDRESSES, TERMS),
        ...[0, 1, 2, 3].flatMap((lane) => [...laneUpdate(lane, ADDRESSES, TERMS, AT), ...STORE_F32]),
      ],
      4,
    ),
    ...postingLoop(P, END_AT, [...postingUpdate(WORD, AT), ...STORE_F32]),
    END,
  ]
  // scan(entries, p, end, bounds, shift, bar, out) → n, locals n, at: every employee whose bound
  // reaches the bar is written to out[n++] and its bound set to −∞ (taken).
  const scan = [
    ...unsignedLeb(1),
    2,
    I32,
    ...postingLoop(1, 2, [
      ...boundOf(3, wordAt(0, 1), 4),
      ...tee(8),
      ...LOAD_F32,
      ...get(5),
      F32_GE,
      ...IF,
      ...get(6),
      ...get(7),
      ...i32(2),
      SHL,
      ADD,
      ...get(8),
      ...get(3),
      SUB,
      ...i32(2),
      SHR_U,
      ...STORE_I32,
      ...get(7),
      ...i32(1),
      ADD,
      ...set(7),
      ...get(8),
      ...f32(Number.NEGATIVE_INFINITY),
      ...STORE_F32,
      END,
    ]),
    ...get(7),
    END,
  ]
  // walkScan(entries, p, end, factor, bounds, shift, steps, bar, out) → n, locals word, at, n,
  // mid, sum, addresses, terms: walk's addition, then scan's test of the new bound, in one pass.
  const [BAR, OUT, S_WORD, S_AT, TAKEN, S_MID, SUM, S_ADDRESSES, S_TERMS] = [7, 8, 9, 10, 11, 12, 13, 14, 15]
  const storeAndTest = [
    ...set(SUM),
    ...get(SUM),
    ...STORE_F32,
    ...get(SUM),
    ...get(BAR),
    F32_GE,
    ...IF,
    ...get(OUT),
    ...get(TAKEN),
    ...i32(2),
    SHL,
    ADD,
    ...get(S_AT),
    ...get(BOUNDS),
    SUB,
    ...i32(2),
    SHR_U,
    ...STORE_I32,
    ...get(TAKEN),
    ...i32(1),
    ADD,
    ...set(TAKEN),
    ...get(S_AT),
    ...f32(Number.NEGATIVE_INFINITY),
    ...STORE_F32,
    END,
  ]
  const walkScan = [
    ...unsignedLeb(3),
    4,
    I32,
    1,
    F32,
    2,
    V128,
    ...quadEnd(S_MID),
    ...postingLoop(
      P,
      S_MID,
      [
        ...decodeFour(S_ADDRESSES, S_TERMS),
        ...[0, 1, 2, 3].flatMap((lane) => [...laneUpdate(lane, S_ADDRESSES, S_TERMS, S_AT), ...storeAndTest]),
      ],
      4,
    ),
    ...postingLoop(P, END_AT, [...postingUpdate(S_WORD, S_AT), ...storeAndTest]),
    ...get(TAKEN),
    END,
  ]
  // clear(entries, p, end, bounds, shift): bounds[entries[p] >>> shift] = 0.
  const clear = [
    ...unsignedLeb(0),
    ...postingLoop(1, 2, [...boundOf(3, wordAt(0, 1), 4), ...f32(0), ...STORE_F32]),
    END,
  ]
  const vector = (items: number[][]) => [...unsignedLeb(items.length), ...items.flat()]
  const section = (id: number, bytes: number[]) => [id, ...unsignedLeb(bytes.length), ...bytes]
  const name = (text: string) => [...unsignedLeb(text.length), ...new TextEncoder().encode(text)]
  const signature = (params: number[], results: number[]) => [
    0x60,
    ...vector(params.map((type) => [type])),
    ...vector(results.map((type) => [type])),
  ]
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(
      1,
      vector([
        signature([I32, I32, I32, F32, I32, I32, I32], []),
        signature([I32, I32, I32, I32, I32, F32, I32], [I32]),
        signature([I32, I32, I32, I32, I32], []),
        signature([I32, I32, I32, F32, I32, I32, I32, F32, I32], [I32]),
      ]),
    ),
    // Imports env.memory, at least one page.
    ...section(2, vector([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vector([[0], [1], [2], [3]])),
    ...section(
      7,
      vector([
        [...name('walk'), 0x00, 0],
        [...name('scan'), 0x00, 1],
        [...name('clear'), 0x00, 2],
        [...name('walkScan'), 0x00, 3],
      ]),
    ),
    ...section(
      10,
      vector([walk, scan, clear, walkScan].map((body) => [...unsignedLeb(body.length), ...body])),
    ),
  ])
}
