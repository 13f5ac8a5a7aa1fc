import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SkillhouseError } from '../../src/errors/skillhouse-error.js'
import { AtomicWriteStream, ensureFolder, writeFileAtomic } from '../../src/util/atomic-file.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
afterAll(() => temp.cleanup())

describe('writeFileAtomic', () => {
  it('replaces a file whole and leaves no temporary file beside it', () => {
    const path = join(temp.dir, 'whole.txt')
    writeFileSync(path, 'old')
    writeFileAtomic(path, 'new text')
    writeFileAtomic(join(temp.dir, 'chunks.bin'), [Buffer.from('ab'), Buffer.from('cd')])
    expect(readFileSync(path, 'utf8')).toBe('new text')
    expect(readFileSync(join(temp.dir, 'chunks.bin'), 'utf8')).toBe('abcd')
    expect(readdirSync(temp.dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('fails over a folder, keeping the folder and no temporary file', () => {
    const folder = join(temp.dir, 'a-folder')
    mkdirSync(folder)
    expect(() => writeFileAtomic(folder, 'x')).toThrow()
    expect(existsSync(folder)).toBe(true)
    expect(readdirSync(temp.dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })
})

describe('ensureFolder', () => {
  it('makes a folder with its parents, and refuses a file in its place with a 400 naming the flag', () => {
    const nested = join(temp.dir, 'out', 'deeper')
    ensureFolder(nested, 'out')
    expect(existsSync(nested)).toBe(true)
    const file = join(temp.dir, 'plain-file')
    writeFileSync(file, '')
    try {
      ensureFolder(file, 'out')
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(SkillhouseError)
      expect((error as SkillhouseError).status).toBe(400)
      expect((error as Error).message).toBe(
        `\`out\` ${file}: is a file; name a folder (it is made when missing)`,
      )
    }
  })
})

describe('AtomicWriteStream', () => {
  it('shows the file only once committed, and leaves the old one when aborted', async () => {
    const path = join(temp.dir, 'stream', 'events.ndjson')
    const stream = new AtomicWriteStream(path)
    stream.write('one\n')
    stream.write('two\n')
    expect(existsSync(path)).toBe(false)
    await stream.commit()
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n')

    const second = new AtomicWriteStream(path)
    second.write('half')
    await second.abort()
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n')
    expect(readdirSync(join(temp.dir, 'stream'))).toEqual(['events.ndjson'])
  })

  it('refuses to commit over a folder with a 400', async () => {
    const folder = join(temp.dir, 'stream-folder')
    mkdirSync(folder)
    const stream = new AtomicWriteStream(folder)
    stream.write('x')
    await expect(stream.commit()).rejects.toMatchObject({ status: 400 })
    expect(readdirSync(temp.dir).filter((name) => name.includes('stream-folder'))).toEqual(['stream-folder'])
  })
})
