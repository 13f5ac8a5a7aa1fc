import * as vega from 'vega'
import { type LocaleFormatters, loader, parse, View } from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'
import { errors } from '../errors/skillhouse-error.js'
import type { LocaleFormat } from './number-format.js'

export type ChartSpec = TopLevelSpec

/**
 * A loader that loads nothing: every chart's data is inline, and a report must open offline, so
 * a spec that names a URL or a file is a bug to hear about, not a fetch to make.
 */
const refusingLoader = loader()
refusingLoader.load = async (uri: string) => {
  throw errors.internal(`a report chart tried to load ${uri}; charts carry their data inline`)
}
refusingLoader.sanitize = async (uri: string) => {
  throw errors.internal(`a report chart tried to load ${uri}; charts carry their data inline`)
}

/** vega's `locale(number, time)` (exported by vega, missing from its typings): formatters of a locale. */
const localeOf = (vega as unknown as { locale: (number: object) => LocaleFormatters }).locale

/** Shared look of every chart: the page's font and colours, no border. */
const CONFIG: ChartSpec['config'] = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif',
  view: { stroke: null },
  axis: {
    labelFontSize: 11,
    titleFontSize: 12,
    labelColor: '#333',
    titleColor: '#333',
    gridColor: '#e6e6e6',
  },
  legend: { labelFontSize: 11, labelLimit: 420, titleFontSize: 12 },
  range: { category: ['#1f5f8b', '#e07b39', '#5b9a68', '#b5443c', '#8c6bb1', '#7f7f7f'] },
}

/**
 * Renders a Vega-Lite spec to an SVG string in Node (vega's SVG renderer, no browser, no canvas):
 * compiled by vega-lite, run headless by a vega View, with the locale's digit grouping.
 */
export async function chartSvg(spec: ChartSpec, format: LocaleFormat): Promise<string> {
  const compiled = compile({ ...spec, config: { ...CONFIG, ...spec.config } } as TopLevelSpec).spec
  const view = new View(parse(compiled), {
    renderer: 'none',
    loader: refusingLoader,
    locale: localeOf(format.chartNumberLocale),
  })
  try {
    return titledCutLabels(await view.toSVG(), textsOf(spec))
  } finally {
    view.finalize()
  }
}

/**
 * Labels vega cut to their axis's limit (ending in …) with their whole text as an SVG title, which
 * a browser shows on hover: a long unit or skill name stays readable where it does not fit.
 */
export function titledCutLabels(svg: string, texts: readonly string[]): string {
  return svg.replace(/(<text[^>]*>)([^<]*)…<\/text>/g, (whole, open: string, shown: string) => {
    const prefix = unescapeXml(shown)
    const full = texts.find((text) => text.length > prefix.length && text.startsWith(prefix))
    return full === undefined ? whole : `${open}<title>${escapeXml(full)}</title>${shown}…</text>`
  })
}

/** Every text of a spec's inline data (`data.values`, of every part of it): what its labels show. */
function textsOf(spec: unknown, found: string[] = []): string[] {
  if (Array.isArray(spec)) for (const item of spec) textsOf(item, found)
  else if (spec !== null && typeof spec === 'object')
    for (const [key, value] of Object.entries(spec)) {
      if (key !== 'values' || !Array.isArray(value)) textsOf(value, found)
      else
        for (const row of value)
          for (const cell of Object.values(row ?? {})) if (typeof cell === 'string') found.push(cell)
    }
  return found
}

const XML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeXml = (text: string) => text.replace(/[&<>"']/g, (char) => XML[char] as string)
const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (entity) =>
    entity === '&#x27;'
      ? "'"
      : (Object.entries(XML).find(([, escaped]) => escaped === entity)?.[0] ?? entity),
  )
