import { errors } from '../errors/skillhouse-error.js'
import type { ApiRoute } from './api-route.js'
import { analyticsRoutes, skillEventRoute } from './routes/analytics-routes.js'
import { collectionRoutes } from './routes/collection-routes.js'
import { customPropertyRoutes } from './routes/custom-property-routes.js'
import { matchingRoutes } from './routes/matching-routes.js'
import { profileRoutes } from './routes/profile-routes.js'
import { recommendRoutes } from './routes/recommend-routes.js'
import { skillClusterCountRoute, taxonomyRoutes } from './routes/taxonomy-routes.js'
import { webhookRoutes } from './routes/webhook-routes.js'
import { SkillEventBatcher } from './skill-event-batcher.js'

/** The routes of section 4 that this server answers, and the resource pattern of docs/api.md. */
export function apiRoutes(): ApiRoute[] {
  // Skill events are written in batches (group commit), one batcher for the routes of one app.
  const skillEvents = new SkillEventBatcher()
  // Fixed paths before the patterns that would take their last segment for an id
  // (`/taxonomy/subdomains/custom_properties` is not the subdomain `custom_properties`).
  return refusingFixedIds([
    ...webhookRoutes(),
    ...customPropertyRoutes(),
    ...taxonomyRoutes(),
    skillClusterCountRoute(),
    skillEventRoute(skillEvents),
    ...analyticsRoutes(),
    ...profileRoutes(),
    ...matchingRoutes(),
    ...recommendRoutes(),
    ...collectionRoutes(),
  ])
}

/**
 * The creates of collections whose item paths share a level with fixed paths refuse an id that
 * is one of them: a record `export` of `/organisational_units` could never be read or deleted,
 * `/organisational_units/export` being the organisational export (fixed paths win).
 */
function refusingFixedIds(routes: ApiRoute[]): ApiRoute[] {
  const fixed = new Set(routes.filter((route) => !route.path.includes(':')).map((route) => route.path))
  return routes.map((route) => {
    const items = `${route.path}/:`
    const collection =
      route.method === 'POST' &&
      !route.path.includes(':') &&
      routes.some((other) => other.path.startsWith(items) && !other.path.slice(items.length).includes('/'))
    if (!collection) return route
    return {
      ...route,
      handler: async (context) => {
        const body = await context.body()
        const id =
          body !== null && typeof body === 'object'
            ? (body as { external_id?: unknown }).external_id
            : undefined
        if (typeof id === 'string' && fixed.has(`${route.path}/${id}`)) {
          throw errors.unprocessable(
            `external_id: '${id}' is the fixed path ${route.path}/${id} of the API, where a record of that id could not be read, changed or deleted; choose another external_id`,
          )
        }
        return route.handler({ ...context, body: async () => body })
      },
    }
  })
}
