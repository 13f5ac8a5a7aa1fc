import type { ChartSpec } from './chart-svg.js'
import { type LocaleFormat, shownScore } from './number-format.js'
import type {
  BenchStrength,
  DataQuality,
  Mobility,
  OrganisationHeatmap,
  Overview,
  SupplyDemand,
} from './report-model.js'

/**
 * The Vega-Lite spec of each section's chart, from the section's figures. Every chart is an
 * aggregate (at most one mark per unit and group, skill, bucket or event type), never one mark per
 * employee, so the page stays small whatever the tenant's size. Labels that carry numbers are
 * formatted here by the locale, not by the chart library.
 */
const WIDTH = 640

export function overviewChart(overview: Overview, format: LocaleFormat): ChartSpec {
  const enough = overview.employees_in_units - overview.low_data_in_units
  const values = [
    { status: 'Enough data', employees: enough },
    { status: 'Low data availability', employees: overview.low_data_in_units },
  ].map((row) => ({ ...row, label: format.count(row.employees) }))
  return {
    width: WIDTH,
    height: 70,
    data: { values },
    layer: [
      {
        mark: { type: 'bar' },
        encoding: {
          y: { field: 'status', type: 'nominal', sort: null, title: null, axis: { labelLimit: 360 } },
          x: {
            field: 'employees',
            type: 'quantitative',
            title: 'Employees in organisational units',
            axis: { format: ',d', tickMinStep: 1 },
          },
          color: { field: 'status', type: 'nominal', legend: null, sort: null },
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4 },
        encoding: {
          y: { field: 'status', type: 'nominal', sort: null },
          x: { field: 'employees', type: 'quantitative' },
          text: { field: 'label' },
        },
      },
    ],
  }
}

/** The skills employees hold, by level: the overview's chart when no employee sits in a unit. */
export function skillsByLevelChart(overview: Overview, format: LocaleFormat): ChartSpec {
  const values = overview.skills_by_level.map((row) => ({
    level: `Level ${row.level}`,
    held: row.held,
    label: format.count(row.held),
  }))
  return {
    width: WIDTH,
    height: { step: 22 },
    data: { values },
    layer: [
      {
        mark: { type: 'bar', color: '#1f5f8b' },
        encoding: {
          y: { field: 'level', type: 'nominal', sort: null, title: null },
          x: {
            field: 'held',
            type: 'quantitative',
            title: "Skills held by employees' profiles",
            axis: { format: ',d', tickMinStep: 1 },
          },
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4 },
        encoding: {
          y: { field: 'level', type: 'nominal', sort: null },
          x: { field: 'held', type: 'quantitative' },
          text: { field: 'label' },
        },
      },
    ],
  }
}

/** Columns of one block of the heatmap: more are split into blocks one above the other. */
export const HEATMAP_BLOCK_COLUMNS = 13

/**
 * The organisation heatmap: units down, groups across, in blocks of at most
 * HEATMAP_BLOCK_COLUMNS columns one above the other (each with every unit), so that 25 groups fit
 * a 1024 px screen and print on A4 at their own size instead of shrunk to unreadable labels.
 */
export function heatmapChart(heatmap: OrganisationHeatmap, format: LocaleFormat): ChartSpec {
  const groups = heatmap.groups.slice(0, heatmap.charted_groups)
  const unitLabels = heatmap.units.map(
    (unit) => `${'· '.repeat(unit.depth - 1)}${unit.name} (${format.count(unit.employees)})`,
  )
  const values = heatmap.units.flatMap((unit, row) =>
    groups.map((group, column) => {
      const holders = unit.holders[column] ?? 0
      const share = unit.employees > 0 ? holders / unit.employees : null
      return {
        unit: unitLabels[row],
        group: group.name,
        share,
        label: share === null ? '–' : format.share(share),
      }
    }),
  )
  const blocks = Math.max(1, Math.ceil(groups.length / HEATMAP_BLOCK_COLUMNS))
  const perBlock = Math.ceil(groups.length / blocks)
  return {
    vconcat: Array.from({ length: blocks }, (_, block) => {
      const names = groups.slice(block * perBlock, (block + 1) * perBlock).map((group) => group.name)
      return heatmapBlock(
        values.filter((value) => names.includes(value.group)),
        unitLabels,
        names,
      )
    }),
    spacing: 24,
    resolve: { scale: { color: 'shared' } },
  } as ChartSpec
}

/** One block of the heatmap: every unit, some of the groups, their names upright above them. */
function heatmapBlock(values: object[], unitLabels: string[], groups: string[]) {
  const cell = 26
  return {
    width: Math.max(120, groups.length * cell * 1.2),
    height: unitLabels.length * cell,
    data: { values },
    encoding: {
      y: { field: 'unit', type: 'nominal', sort: unitLabels, title: null, axis: { labelLimit: 320 } },
      x: {
        field: 'group',
        type: 'nominal',
        sort: groups,
        title: null,
        axis: {
          orient: 'top',
          labelAngle: -90,
          labelAlign: 'left',
          labelBaseline: 'middle',
          labelLimit: 300,
        },
      },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 1 },
        encoding: {
          color: {
            field: 'share',
            type: 'quantitative',
            scale: { domain: [0, 1], scheme: 'blues' },
            legend: { title: 'Share at level ≥ 3', format: '.0%', orient: 'bottom', gradientLength: 240 },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 10 },
        encoding: {
          text: { field: 'label' },
          color: { condition: { test: 'datum.share > 0.55', value: '#ffffff' }, value: '#1a1a1a' },
        },
      },
    ],
  }
}

export function supplyDemandChart(supply: SupplyDemand, format: LocaleFormat): ChartSpec {
  const order = supply.skills.map((skill) => skill.skill_name)
  const values = supply.skills
    .flatMap((skill) => [
      { skill: skill.skill_name, measure: 'Asked for by open vacancies', count: skill.demand },
      { skill: skill.skill_name, measure: 'Employees holding it at the level asked', count: skill.holders },
    ])
    .map((row) => ({ ...row, label: format.count(row.count) }))
  return {
    width: WIDTH,
    height: { step: 10 },
    data: { values },
    encoding: {
      y: { field: 'skill', type: 'nominal', sort: order, title: null, axis: { labelLimit: 280 } },
      yOffset: { field: 'measure', type: 'nominal', sort: null },
      x: { field: 'count', type: 'quantitative', title: null, axis: { format: ',d', tickMinStep: 1 } },
      color: {
        field: 'measure',
        type: 'nominal',
        sort: null,
        legend: { orient: 'top', title: null, direction: 'vertical' },
      },
    },
    layer: [
      { mark: { type: 'bar' } },
      {
        mark: { type: 'text', align: 'left', dx: 3, fontSize: 9 },
        encoding: { text: { field: 'label' }, color: { value: '#333' } },
      },
    ],
  }
}

/** Vacancies by what their best internal candidate scores. */
export function mobilityBuckets(
  mobility: Mobility,
  format: LocaleFormat,
): { bucket: string; vacancies: number }[] {
  const strong = format.matchScore(mobility.strong_score)
  const buckets = [
    { bucket: 'No internal candidate', vacancies: 0 },
    { bucket: `Best candidate below ${format.matchScore(0.5)}`, vacancies: 0 },
    { bucket: `Best candidate ${format.matchScore(0.5)} to under ${strong}`, vacancies: 0 },
    { bucket: `Best candidate ${strong} or above`, vacancies: 0 },
  ] as { bucket: string; vacancies: number }[]
  for (const vacancy of mobility.vacancies) {
    // By the score as shown (two decimals), so that a candidate shown 0.70 is in the bucket that names 0.70.
    const shown = vacancy.candidates[0] && shownScore(vacancy.candidates[0].score)
    const at = shown === undefined ? 0 : shown < 0.5 ? 1 : shown < mobility.strong_score ? 2 : 3
    ;(buckets[at] as { vacancies: number }).vacancies++
  }
  return buckets
}

export function mobilityChart(mobility: Mobility, format: LocaleFormat): ChartSpec {
  return bucketChart(mobilityBuckets(mobility, format), 'vacancies', 'Open vacancies', format)
}

/** Jobs by how many employees 4.10 matches to them. */
export function benchBuckets(bench: BenchStrength): { bucket: string; jobs: number }[] {
  const edges: [string, (count: number) => boolean][] = [
    ['No matching employee', (count) => count === 0],
    ['1–2 employees', (count) => count >= 1 && count <= 2],
    ['3–9 employees', (count) => count >= 3 && count <= 9],
    ['10–49 employees', (count) => count >= 10 && count <= 49],
    [`50–${bench.match_limit - 1} employees`, (count) => count >= 50 && count < bench.match_limit],
    [`${bench.match_limit} or more (the limit)`, (count) => count >= bench.match_limit],
  ]
  return edges.map(([bucket, test]) => ({
    bucket,
    jobs: bench.jobs.filter((job) => test(job.matching)).length,
  }))
}

export function benchChart(bench: BenchStrength, format: LocaleFormat): ChartSpec {
  return bucketChart(benchBuckets(bench), 'jobs', 'Jobs', format)
}

/** An event type as a reader reads it on an axis: `skill_profile_feedback` → `Skill profile feedback`. */
export const eventTypeLabel = (type: string): string => {
  const words = type.replaceAll('_', ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export function dataQualityChart(quality: DataQuality, format: LocaleFormat): ChartSpec {
  const values = quality.event_types
    .flatMap((type) => {
      if (type.without_skill === null) {
        return [
          {
            type: eventTypeLabel(type.event_type),
            part: quality.derived ? 'No text (validates or rejects a skill)' : 'Not derived yet',
            events: type.events,
          },
        ]
      }
      return [
        {
          type: eventTypeLabel(type.event_type),
          part: 'Gave a skill to a profile',
          events: type.events - type.without_skill,
        },
        { type: eventTypeLabel(type.event_type), part: 'Gave no skill', events: type.without_skill },
      ]
    })
    .map((row) => ({ ...row, label: format.count(row.events) }))
  const parts = QUALITY_PARTS.filter(([part]) => values.some((row) => row.part === part))
  return {
    width: WIDTH,
    height: { step: 18 },
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      y: {
        field: 'type',
        type: 'nominal',
        sort: quality.event_types.map((type) => eventTypeLabel(type.event_type)),
        title: null,
      },
      x: {
        field: 'events',
        type: 'quantitative',
        stack: 'zero',
        title: 'Skill events',
        axis: { format: ',d', tickMinStep: 1 },
      },
      color: {
        field: 'part',
        type: 'nominal',
        sort: null,
        scale: {
          domain: parts.map((part) => part[0]),
          range: parts.map((part) => part[1]),
        },
        legend: { orient: 'top', title: null, direction: 'vertical' },
      },
    },
  }
}

/** The parts of an event type's bar and their colours. */
const QUALITY_PARTS: [string, string][] = [
  ['Gave a skill to a profile', '#1f5f8b'],
  ['Gave no skill', '#e07b39'],
  ['No text (validates or rejects a skill)', '#9e9e9e'],
  ['Not derived yet', '#c7c7c7'],
]

function bucketChart<K extends string>(
  rows: ({ bucket: string } & Record<K, number>)[],
  field: K,
  title: string,
  format: LocaleFormat,
): ChartSpec {
  const values = rows.map((row) => ({ ...row, label: format.count(row[field]) }))
  return {
    width: WIDTH,
    height: { step: 26 },
    data: { values },
    encoding: {
      y: { field: 'bucket', type: 'nominal', sort: null, title: null, axis: { labelLimit: 360 } },
      x: { field, type: 'quantitative', title, axis: { format: ',d', tickMinStep: 1 } },
    },
    layer: [
      { mark: { type: 'bar', color: '#1f5f8b' } },
      { mark: { type: 'text', align: 'left', dx: 4 }, encoding: { text: { field: 'label' } } },
    ],
  }
}
