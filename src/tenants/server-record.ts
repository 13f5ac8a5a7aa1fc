import { readFileSync, rmSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { writeFileAtomic } from '../util/atomic-file.js'
import { processAlive } from '../util/file-lock.js'

/**
 * What a running `skillhouse serve` says of itself in the data directory it serves
 * (`serve.json`, readable by the directory's owner only): commands on its tenants find it there
 * and hand their work to it over its local channel, a Unix socket in a private folder, with the
 * secret this file holds.
 */
export interface ServerRecord {
  pid: number
  host: string
  /** The HTTP API's address. */
  url: string
  /** The local channel's socket. */
  socket: string
  /** What every request on the local channel must carry. */
  secret: string
  started_at: string
}

export const serverRecordFile = (dataDir: string) => join(dataDir, 'serve.json')

/** Writes the record, readable and writable by the owner alone. */
export function writeServerRecord(dataDir: string, record: ServerRecord): void {
  const path = serverRecordFile(dataDir)
  writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`, 0o600)
}

/**
 * The record of the server serving `dataDir` now, if one does: a record whose process is gone
 * (a server killed with `kill -9`) is ignored.
 */
export function readServerRecord(dataDir: string): ServerRecord | undefined {
  let record: ServerRecord
  try {
    record = JSON.parse(readFileSync(serverRecordFile(dataDir), 'utf8')) as ServerRecord
  } catch {
    return undefined
  }
  if (typeof record.pid !== 'number' || typeof record.socket !== 'string') return undefined
  if (record.host === hostname() && !processAlive(record.pid)) return undefined
  return record
}

/** Removes the record when it is this process's (a newer server may have replaced it). */
export function removeServerRecord(dataDir: string, pid = process.pid): void {
  try {
    const record = JSON.parse(readFileSync(serverRecordFile(dataDir), 'utf8')) as ServerRecord
    if (record.pid !== pid) return
  } catch {
    return
  }
  rmSync(serverRecordFile(dataDir), { force: true })
}
