import { errors, type SkillhouseError } from '../errors/skillhouse-error.js'
import type { ApiRoute } from './api-route.js'

/**
 * Query parameters an endpoint does not have are refused, never ignored: a misspelt
 * `respons_format` or a body field sent in the query (`?limit=2` on 4.10) would otherwise answer
 * as if it had not been sent. The error names each one and the parameters the endpoint has;
 * a name that is a field of the endpoint's body says so. Status 422 (invalid data), as a query
 * value that does not parse.
 */
export function unknownQueryParameters(
  route: Pick<ApiRoute, 'doc'>,
  names: Iterable<string>,
): SkillhouseError | undefined {
  const known = Object.keys(route.doc.query?.shape ?? {})
  const unknown = [...names].filter((name) => !known.includes(name))
  if (unknown.length === 0) return undefined
  const bodyFields = fieldsOf(route.doc.body?.schema)
  const listed = known.length > 0 ? `its parameters are ${known.join(', ')}` : 'it takes none'
  return errors.invalidQuery(
    unknown.map(
      (name) =>
        `query parameter ${name}: is not a parameter of this endpoint (${listed})${
          bodyFields.includes(name) ? `; ${name} is a field of the request body` : ''
        }`,
    ),
  )
}

/** The top-level fields of a body schema that is an object. */
function fieldsOf(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape
  return shape ? Object.keys(shape) : []
}
