/** Section 8 of the spec, plus the limits skillhouse sets where the spec leaves them open. */
export const LIMITS = {
  externalId: { min: 1, max: 100, pattern: /^[a-zA-Z0-9_-]+$/ },
  name: { min: 1, max: 255 },
  vat: { min: 1, max: 15 },
  propertyName: { min: 1, max: 100 },
  propertyType: { min: 1, max: 10 },
  languageLevel: { min: 1, max: 5, default: 2 },
  jobMatching: {
    limit: { min: 1, max: 50, default: 10 },
    matchLimitPerEntity: { min: 1, max: 100, default: 10 },
    scoreMinThreshold: { min: 0, max: 1, default: 0.5 },
  },
  minCriticalSkillsMatchRatio: { min: 0, max: 1 },
  vacancyMatching: {
    limit: { min: 1, max: 100, default: 10 },
    /** skillhouse's bound on the rank offset (the spec gives a minimum only). */
    offset: { min: 0, max: 100_000, default: 0 },
    minScore: { min: 0, max: 1, default: 0 },
    defaultMaxGeoDistanceKm: 50,
  },
  /** skillhouse's own bounds on free text, so that a row cannot hold a whole file. */
  text: { max: 100_000 },
  /** The longest line of an NDJSON file ingest reads (a row); longer lines are rejected unread. */
  lineChars: 16 * 1024 * 1024,
  listItems: { max: 1_000 },
  /** Default HTTP body limit (413 above it); configurable on `serve`. */
  bodyBytes: 1024 * 1024,
} as const
