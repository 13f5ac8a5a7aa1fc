/** LEB128, the variable-length integers of the WebAssembly binary format. */

/** An unsigned integer as LEB128 bytes. */
export function unsignedLeb(value: number): number[] {
  const out: number[] = []
  let rest = value >>> 0
  do {
    let byte = rest & 0x7f
    rest >>>= 7
    if (rest !== 0) byte |= 0x80
    out.push(byte)
  } while (rest !== 0)
  return out
}

/** A signed integer as LEB128 bytes. */
export function signedLeb(value: number): number[] {
  const out: number[] = []
  let rest = value | 0
  for (;;) {
    const byte = rest & 0x7f
    rest >>= 7
    if ((rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0)) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}
