import { isUtf8 } from 'node:buffer'
import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'

/** Text encodings a data file may be read in (`ingest --encoding`); UTF-8 unless told or marked. */
export const TEXT_ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'] as const
export type TextEncoding = (typeof TEXT_ENCODINGS)[number]

/** How the command that converts a file to UTF-8 is written, for messages. */
const ICONV_NAMES: Record<TextEncoding, string> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16LE',
  'utf-16be': 'UTF-16BE',
  'windows-1252': 'WINDOWS-1252',
}

/**
 * The command that converts a file in place, through a copy whose name ingest would read too
 * (`employees.utf8.csv`: same entity, same format), so that a copy left behind is not skipped.
 */
const howToConvert = (path: string, encoding: TextEncoding) => {
  const name = basename(path)
  const extension = extname(name)
  const copy = `${name.slice(0, name.length - extension.length)}.utf8${extension}`
  return `convert it to UTF-8 (iconv -f ${ICONV_NAMES[encoding]} -t UTF-8 ${name} > ${copy} && mv ${copy} ${name}) or pass --encoding ${encoding}`
}

/**
 * The encoding a file's first bytes declare or betray: a UTF-16 byte order mark, or (without
 * one) the zero bytes of UTF-16 text in every other position, which UTF-8 text never holds.
 */
export function sniffEncoding(path: string): { encoding: TextEncoding; marked: boolean } | null {
  const head = Buffer.alloc(4096)
  const fd = openSync(path, 'r')
  let length: number
  try {
    length = readSync(fd, head, 0, head.length, 0)
  } finally {
    closeSync(fd)
  }
  const bytes = head.subarray(0, length)
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', marked: true }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', marked: true }
  let evenZeros = 0
  let oddZeros = 0
  for (let index = 0; index < bytes.length; index++) {
    if (bytes[index] === 0) {
      if (index % 2 === 0) evenZeros++
      else oddZeros++
    }
  }
  const half = bytes.length / 2
  if (half >= 2 && oddZeros > half * 0.3 && evenZeros < oddZeros / 10)
    return { encoding: 'utf-16le', marked: false }
  if (half >= 2 && evenZeros > half * 0.3 && oddZeros < evenZeros / 10)
    return { encoding: 'utf-16be', marked: false }
  return null
}

/**
 * The encoding to read a file in: the one given, else a UTF-16 byte order mark's, else UTF-8.
 * UTF-16 text without a mark is refused, naming it and how to convert the file.
 */
export function encodingOf(path: string, given: TextEncoding | undefined): TextEncoding {
  if (given) return given
  const sniffed = sniffEncoding(path)
  if (!sniffed) return 'utf-8'
  if (sniffed.marked) return sniffed.encoding
  throw errors.badRequest(
    `${path} looks like ${ICONV_NAMES[sniffed.encoding]} text without a byte order mark (every other byte is zero), not UTF-8; ${howToConvert(path, sniffed.encoding)}`,
  )
}

/** Writes a UTF-8 copy of a file in another encoding to a temporary file; returns its path. */
export async function transcodeToUtf8(
  path: string,
  encoding: TextEncoding,
): Promise<{ path: string; done: () => void }> {
  // In a folder of its own under the file's own name, so that rejects name the file as given.
  const folder = mkdtempSync(join(tmpdir(), 'skillhouse-utf8-'))
  const copy = join(folder, basename(path))
  const decoder = new TextDecoder(encoding)
  const out = createWriteStream(copy)
  const finished = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve)
    out.on('error', reject)
  })
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) {
    if (!out.write(decoder.decode(chunk as Buffer, { stream: true })))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  out.end(decoder.decode())
  await finished
  return { path: copy, done: () => rmSync(folder, { recursive: true, force: true }) }
}

/** Where a file stops being UTF-8: the first byte that cannot be, and its line. */
export interface InvalidUtf8 {
  line: number
  byte: number
}

/**
 * Checks that a file read chunk by chunk is UTF-8 (a sequence may be split between chunks), and
 * finds the first byte that is not, with its line.
 */
export class Utf8Check {
  private carry: Buffer = Buffer.alloc(0)
  private line = 1
  invalid: InvalidUtf8 | null = null

  push(chunk: Buffer): void {
    if (this.invalid) return
    const bytes = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk
    const tail = incompleteTail(bytes)
    const complete = bytes.subarray(0, bytes.length - tail)
    if (!isUtf8(complete)) {
      const at = firstInvalid(complete)
      this.invalid = { line: this.line + countNewlines(complete, at), byte: complete[at] ?? 0 }
      return
    }
    this.line += countNewlines(complete, complete.length)
    this.carry = Buffer.from(bytes.subarray(bytes.length - tail))
  }

  end(): InvalidUtf8 | null {
    if (!this.invalid && this.carry.length) this.invalid = { line: this.line, byte: this.carry[0] as number }
    return this.invalid
  }
}

/**
 * The 400 for a file that is not UTF-8: the line and byte, what the byte would be in
 * Windows-1252 (what Excel and older exports write), and how to convert the file.
 */
export function notUtf8(path: string, invalid: InvalidUtf8): Error {
  const byte = `0x${invalid.byte.toString(16).toUpperCase().padStart(2, '0')}`
  const asCp1252 = new TextDecoder('windows-1252').decode(Uint8Array.of(invalid.byte))
  return errors.badRequest(
    `${path} is not UTF-8: byte ${byte} on line ${invalid.line} is not valid UTF-8; it looks like Windows-1252 (cp1252) or Latin-1, where that byte is '${asCp1252}'; ${howToConvert(path, 'windows-1252')}`,
  )
}

/** Bytes at the end of `bytes` that begin a UTF-8 sequence the chunk does not finish. */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number
    if ((byte & 0xc0) === 0x80) continue
    if (byte < 0xc0) return 0
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
    return length > back ? back : 0
  }
  return 0
}

/** The index of the first byte of `bytes` that is not part of a valid UTF-8 sequence. */
function firstInvalid(bytes: Buffer): number {
  let index = 0
  while (index < bytes.length) {
    const byte = bytes[index] as number
    const length =
      byte < 0x80
        ? 1
        : byte >= 0xc2 && byte < 0xe0
          ? 2
          : byte >= 0xe0 && byte < 0xf0
            ? 3
            : byte >= 0xf0 && byte < 0xf5
              ? 4
              : 0
    if (length === 0) return index
    if (length > 1 && !isUtf8(bytes.subarray(index, index + length))) return index
    index += length
  }
  return bytes.length
}

function countNewlines(bytes: Buffer, end: number): number {
  let count = 0
  for (let at = bytes.indexOf(10); at >= 0 && at < end; at = bytes.indexOf(10, at + 1)) count++
  return count
}
