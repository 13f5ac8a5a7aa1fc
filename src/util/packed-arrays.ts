import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

/**
 * Typed arrays packed into bytes, or a file, for another process (the compiled vocabulary, the job matching
 * index): a 4-byte length, a JSON header (the caller's, plus each array's type and length), then
 * the arrays, each 8-aligned. Read back onto shared memory, so that worker threads can use them.
 */

export type PackedArray = Int32Array | Uint32Array | Uint8Array | Float32Array | Float64Array

const TYPES = { Int32Array, Uint32Array, Uint8Array, Float32Array, Float64Array } as const
type TypeName = keyof typeof TYPES

function typeName(array: PackedArray): TypeName {
  for (const name of Object.keys(TYPES) as TypeName[]) if (array instanceof TYPES[name]) return name
  throw new Error('not a typed array that can be packed')
}

/** The chunks of a packed file: write them in order (no copy of the arrays is made). */
export function packArrays(header: Record<string, unknown>, arrays: readonly PackedArray[]): Uint8Array[] {
  const layout = arrays.map((array) => [typeName(array), array.length] as const)
  const text = Buffer.from(JSON.stringify({ ...header, arrays: layout }))
  const chunks: Uint8Array[] = [new Uint8Array(new Uint32Array([text.length]).buffer), text]
  let size = 4 + text.length
  for (const array of arrays) {
    const padding = (8 - (size % 8)) % 8
    if (padding > 0) chunks.push(new Uint8Array(padding))
    chunks.push(new Uint8Array(array.buffer, array.byteOffset, array.byteLength))
    size += padding + array.byteLength
  }
  return chunks
}

/**
 * The header and arrays of `packArrays`' bytes, the arrays on shared memory; undefined when the
 * bytes are not whole (a file cut short, or of another format).
 */
export function unpackArrays(bytes: Uint8Array) {
  return unpack(bytes.length, (target, position) => {
    target.set(bytes.subarray(position, position + target.length))
    return target.length
  })
}

/**
 * `unpackArrays` of a file, read straight into the shared memory of its arrays (one copy, not
 * two: copying a job index's tens of megabytes is not free); undefined when there is no whole file.
 */
export function readPackedArrays(path: string) {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    return unpack(fstatSync(fd).size, (target, position) => {
      let done = 0
      while (done < target.length) {
        const read = readSync(fd, target, done, target.length - done, position + done)
        if (read === 0) break
        done += read
      }
      return done
    })
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Reads a packed file of `size` bytes through `read` (fills its target from a position; gives the bytes read). */
function unpack(
  size: number,
  read: (target: Uint8Array, position: number) => number,
): { header: Record<string, unknown>; arrays: PackedArray[] } | undefined {
  if (size < 4) return undefined
  const lengthBytes = new Uint8Array(4)
  if (read(lengthBytes, 0) !== 4) return undefined
  const length = new DataView(lengthBytes.buffer).getUint32(0, true)
  if (4 + length > size) return undefined
  const text = new Uint8Array(length)
  if (read(text, 4) !== length) return undefined
  let header: Record<string, unknown>
  try {
    header = JSON.parse(Buffer.from(text.buffer, 0, length).toString('utf8'))
  } catch {
    return undefined
  }
  const layout = header.arrays
  if (!Array.isArray(layout)) return undefined
  // Where each array starts, from the 8-aligned start of the first; then all read at once into one
  // shared buffer (one allocation: V8 collects garbage on each large one).
  const first = 4 + length + ((8 - ((4 + length) % 8)) % 8)
  let offset = first
  const places: { Type: (typeof TYPES)[TypeName]; at: number; count: number }[] = []
  for (const item of layout) {
    if (!Array.isArray(item)) return undefined
    const [name, count] = item as [unknown, unknown]
    if (typeof name !== 'string' || !(name in TYPES) || !Number.isSafeInteger(count) || (count as number) < 0)
      return undefined
    const Type = TYPES[name as TypeName]
    offset += (8 - (offset % 8)) % 8
    places.push({ Type, at: offset - first, count: count as number })
    offset += (count as number) * Type.BYTES_PER_ELEMENT
  }
  if (offset !== size && !(places.length === 0 && size === 4 + length)) return undefined
  const shared = new SharedArrayBuffer(Math.max(0, size - first))
  if (size > first && read(new Uint8Array(shared), first) !== size - first) return undefined
  const arrays = places.map(
    ({ Type, at, count }) =>
      new (Type as unknown as new (buffer: SharedArrayBuffer, at: number, count: number) => PackedArray)(
        shared,
        at,
        count,
      ),
  )
  return { header, arrays }
}
