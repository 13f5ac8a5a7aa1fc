import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'

/** Debian's chromium, as `.ci/run` installs it. */
export const CHROMIUM = '/usr/bin/chromium'

/** What a page did while it was open: every request it made and every error it logged. */
export interface OpenedReport {
  browser: Browser
  page: Page
  requests: string[]
  errors: string[]
  close: () => Promise<void>
}

/**
 * Opens `report.html` from disk in headless Chromium with networking features off and a fresh
 * profile, recording every request the page makes (the file itself is the only one expected) and
 * every console error or page error.
 */
export function openReport(htmlPath: string, width = 1400): Promise<OpenedReport> {
  return openPage(pathToFileURL(htmlPath).href, width)
}

/** Opens a page (a file or http URL) as `openReport` does, recording its requests and errors. */
export async function openPage(href: string, width = 1400): Promise<OpenedReport> {
  const profile = mkdtempSync(join(tmpdir(), 'skillhouse-chromium-'))
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  })
  const page = await browser.newPage()
  const requests: string[] = []
  const errors: string[] = []
  page.on('request', (request) => requests.push(request.url()))
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(String(error)))
  await page.setViewport({ width, height: 1000 })
  await page.goto(href, { waitUntil: 'load' })
  return {
    browser,
    page,
    requests,
    errors,
    close: async () => {
      await browser.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

/** A screenshot of one section (by its `data-section`) as PNG, at `path`. */
export async function screenshotSection(page: Page, section: string, path: string): Promise<void> {
  const element = await page.$(`section[data-section="${section}"]`)
  if (!element) throw new Error(`no section ${section} on the page`)
  await element.screenshot({ path: path as `${string}.png` })
}
