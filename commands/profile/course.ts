import type { ProfileOwner } from '../../src/profiles/read-profile.js'
import { ProfileCommand, profileArgs, profileFlags } from './employee.js'

export default class ProfileCourse extends ProfileCommand {
  static override summary = "A course's skill profile as the API returns it"
  static override examples = ['<%= config.bin %> profile course crs-forklift-safety --json']
  static override args = profileArgs
  static override flags = profileFlags
  protected owner: ProfileOwner = 'course'
}
