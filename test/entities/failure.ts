import type { SkillhouseError } from '../../src/errors/skillhouse-error.js'

/** The status and descriptions of the SkillhouseError `work` fails with (undefined when it does not fail). */
export async function failure(work: Promise<unknown>) {
  const error = (await work.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as SkillhouseError | undefined
  return { status: error?.status, descriptions: error?.descriptions }
}
