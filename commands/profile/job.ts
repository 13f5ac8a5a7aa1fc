import type { ProfileOwner } from '../../src/profiles/read-profile.js'
import { ProfileCommand, profileArgs, profileFlags } from './employee.js'

export default class ProfileJob extends ProfileCommand {
  static override summary = "A job's skill profile as the API returns it"
  static override examples = ['<%= config.bin %> profile job job-data-engineer --json']
  static override args = profileArgs
  static override flags = profileFlags
  protected owner: ProfileOwner = 'job'
}
