import { extractorFor } from '../extraction/extractor-cache.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { type EventInput, evidenceOfEvent, type ReferencedProfiles } from './evidence.js'

/**
 * The `strict` option of 4.2: whether an event can contribute to a Skill Profile at all (a
 * skill found in its text, named by it, or held by the Job or Course it references; a
 * validate/reject of a known skill counts too). A skill the text only implies does not make an
 * event usable: alone it is too weak to put a skill on a profile. Prepared once per file or request.
 */
export async function strictCheck(database: TenantDatabase): Promise<(event: EventInput) => boolean> {
  const extractor = await extractorFor(database, 'vendor_default')
  const knownSkills = new Set(extractor.skillIds)
  const rows = await database.all<{
    entity_type: string
    entity_id: string
    skill_id: string
    score: number
  }>(
    `SELECT entity_type, entity_id, skill_id, score FROM profile_skills
     WHERE external_vendor = 'vendor_default' AND entity_type IN ('job', 'course')`,
  )
  const referenced: ReferencedProfiles = { jobs: new Map(), courses: new Map() }
  for (const row of rows) {
    const map = (row.entity_type === 'job' ? referenced.jobs : referenced.courses) as Map<
      string,
      { skill_id: string; score: number }[]
    >
    const list = map.get(row.entity_id)
    if (list) list.push({ skill_id: row.skill_id, score: row.score })
    else map.set(row.entity_id, [{ skill_id: row.skill_id, score: row.score }])
  }
  return (event) => {
    if (event.event_type === 'skill_profile_feedback') return knownSkills.has(String(event.content.skill_id))
    return evidenceOfEvent(event, extractor, referenced, knownSkills, { implied: false }).length > 0
  }
}
