import { VENDORS } from '../schemas/vendors.js'
import { VOCAB_LANGUAGES } from '../schemas/vocabulary-languages.js'
import { Flags } from '../vendor/oclif.js'

/** `--vendor` and `--language` of `tenant create` and `tenant update`: what a tenant activates. */
export const activationFlags = () => ({
  vendor: Flags.string({
    description: 'activate a vocabulary vendor (repeatable)',
    options: [...VENDORS],
    multiple: true,
  }),
  language: Flags.string({
    description: 'activate a vocabulary language (repeatable)',
    options: [...VOCAB_LANGUAGES],
    multiple: true,
  }),
})

/** The tenant settings' fields that their flags name otherwise (see SkillhouseCommand.fieldFlags). */
export const TENANT_SETTING_FLAGS = {
  model_configuration: 'model-config',
  vendors: 'vendor',
  languages: 'language',
}

/** How a match answer is told (4.10 and 4.11 alike): its format, vocabulary and language of names. */
export const matchAnswerFlags = () => ({
  'response-format': Flags.string({ description: 'simple or explained', options: ['simple', 'explained'] }),
  'external-vendor': Flags.string({
    description: 'vocabulary of the profiles matched',
    options: [...VENDORS],
  }),
  'vocab-language': Flags.string({
    description: 'language of skill names in explanations (default en_uk)',
  }),
})
