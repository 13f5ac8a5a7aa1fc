import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { OpenApiDocument } from './openapi-document.js'

/**
 * The API reference that `serve` and `mock` answer at their root, offline: the OpenAPI document
 * at `/openapi.json` and a page at `/docs` drawn by Swagger UI (the `swagger-ui-dist` package,
 * its files served from the installation, nothing fetched from elsewhere). `/` and a base URL
 * without a path lead to the page.
 */

/** One answer of the reference: a status, its headers and its bytes. */
export interface ReferenceAnswer {
  status: 200 | 302
  headers: Record<string, string>
  body: Uint8Array<ArrayBuffer> | string
}

export const API_REFERENCE_PATH = '/docs'
export const OPENAPI_JSON_PATH = '/openapi.json'

/** The files of Swagger UI the page loads, by the name it loads them under. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

export class ApiReference {
  private json: string | undefined
  private readonly assets = new Map<string, Uint8Array<ArrayBuffer>>()

  /** `document` is read once, at the first request for it; `title` heads the page. */
  constructor(
    private readonly document: () => OpenApiDocument,
    private readonly title: string,
  ) {}

  /** The answer for a request path, or undefined when the path is not the reference's. */
  answer(path: string): ReferenceAnswer | undefined {
    if (path === '/') return redirect()
    if (path === OPENAPI_JSON_PATH) {
      this.json ??= JSON.stringify(this.document(), null, 2)
      return { status: 200, headers: { 'content-type': 'application/json' }, body: this.json }
    }
    if (path === API_REFERENCE_PATH || path === `${API_REFERENCE_PATH}/`) {
      return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: page(this.title) }
    }
    const asset = path.startsWith(`${API_REFERENCE_PATH}/`) ? path.slice(API_REFERENCE_PATH.length + 1) : ''
    const type = ASSETS[asset]
    if (!type) return undefined
    let bytes = this.assets.get(asset)
    if (!bytes) {
      bytes = new Uint8Array(readFileSync(join(swaggerUiFolder(), asset)))
      this.assets.set(asset, bytes)
    }
    return { status: 200, headers: { 'content-type': type, 'cache-control': 'max-age=3600' }, body: bytes }
  }
}

/** The answer to a path that leads to the page: `/`, and a base URL with no path below it. */
export function redirect(): ReferenceAnswer {
  return { status: 302, headers: { location: API_REFERENCE_PATH }, body: '' }
}

function swaggerUiFolder(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] ?? char)

/** The page: Swagger UI on the document, without the validator badge (it would call a web service). */
function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${API_REFERENCE_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${API_REFERENCE_PATH}/swagger-ui.css">
</head>
<body>
<div id="api-reference"></div>
<script src="${API_REFERENCE_PATH}/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({
  url: '${OPENAPI_JSON_PATH}',
  dom_id: '#api-reference',
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
  persistAuthorization: false,
})
</script>
</body>
</html>
`
}

/**
 * The document as a server answers it at `/openapi.json`: its servers relative to the host the
 * page came from, so that the reference's requests go to the server that answered it.
 */
export function servedDocument(document: OpenApiDocument): OpenApiDocument {
  const relative = (url: string) => url.replace(/^https?:\/\/[^/]+/, '') || '/'
  const paths: Record<string, unknown> = {}
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    paths[path] = item.servers
      ? { ...item, servers: item.servers.map((server) => ({ ...server, url: relative(server.url) })) }
      : item
  }
  return {
    ...document,
    servers: (document.servers ?? []).map((server) => ({ ...server, url: relative(server.url) })),
    paths: paths as NonNullable<OpenApiDocument['paths']>,
  }
}
