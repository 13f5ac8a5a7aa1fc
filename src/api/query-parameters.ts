import { errors, type SkillhouseError } from '../errors/skillhouse-error.js'
import type { ApiRoute } from './api-route.js'

/** The query parameters of a request that its endpoint does not have: the error naming them, or undefined. */
export type QueryParameterCheck = (names: Iterable<string>) => SkillhouseError | undefined

/**
 * Query parameters an endpoint does not have are refused, never ignored: a misspelt
 * `respons_format` or a body field sent in the query (`?limit=2` on 4.10) would otherwise answer
 * as if it had not been sent. The error names each one and the parameters the endpoint has;
 * a name that is a field of the endpoint's body says so. Status 422 (invalid data), as a query
 * value that does not parse. Built once per route: what it knows of the route is read here.
 */
export function queryParameterCheck(route: Pick<ApiRoute, 'doc'>): QueryParameterCheck {
  const known = new Set(Object.keys(route.doc.query?.shape ?? {}))
  const bodyFields = new Set(fieldsOf(route.doc.body?.schema))
  const listed = known.size > 0 ? `its parameters are ${[...known].join(', ')}` : 'it takes none'
  return (names) => {
    const unknown = [...names].filter((name) => !known.has(name))
    if (unknown.length === 0) return undefined
    return errors.invalidQuery(
      unknown.map(
        (name) =>
          `query parameter ${name}: is not a parameter of this endpoint (${listed})${
            bodyFields.has(name) ? `; ${name} is a field of the request body` : ''
          }`,
      ),
    )
  }
}

/** The top-level fields of a body schema that is an object. */
function fieldsOf(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape
  return shape ? Object.keys(shape) : []
}
