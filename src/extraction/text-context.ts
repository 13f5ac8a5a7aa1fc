import { normaliseWord } from './text-tokens.js'

/**
 * Context rules that decide which words of a text may evidence a skill, the same for every text
 * (written as a linguist would, not for any one sentence):
 *
 * - a section about the employer or its benefits ("What we offer", "Wat mag je verwachten?",
 *   "Nous offrons", "Wir bieten") runs from its heading to the next heading (a line that ends in
 *   ':' or '?') or the end of the text, and evidences nothing;
 * - a negation ("no experience with", "geen ervaring met", "pas de", "keine", "without") silences
 *   the rest of its clause (up to punctuation, a contrast such as "but" or "maar", or 8 words),
 *   except "not only" and its equivalents;
 * - function words and pronouns of the four languages never evidence a skill on their own
 *   ("we", "die", "was"), unless written in capitals ("WE" may be an abbreviation).
 */

/** Bits of a word's context role, computed once per distinct word. */
export const FUNCTION_WORD = 1
export const NEGATION = 2
export const CONTRAST = 4
export const ONLY = 8
export const HEADING_START = 16
/** Words that say nothing about a skill in a work text: never ranked (besides function words). */
export const GENERIC_WORD = 32

const FUNCTION_WORDS = `
a an and are as at be been being but by can could did do does for from had has have he her hers him his
how i if in into is it its me mine my of off on onto or our ours out over she so than that the their
theirs them then there these they this those through to too under up upon us was we were what when
where which while who whom whose why will with would you your yours yourself also about after before
more most such not no nor only own same any all both each few other some very just am per via etc
aan al alle als an ben bij da dan dat de deze die dit doch door dus een eens en er ge geen haar had heb
hebben heeft hem het hier hij hoe hun ik in is je jij jou jouw ja kan kon kunnen maar me meer men met
mij mijn moet na naar niet niets nog nu of om omdat onder ons onze ook op over reeds te tegen toch toen
tot u uit uw van veel voor want waren was wat we wel werd wie wij wil worden wordt zal ze zelf zich zij
zijn zo zonder zou
à au aux avec ce ces cet cette chez dans de des du elle elles en est et été être eu il ils je la le les
leur leurs lui ma mais me même mes moi mon ne nos notre nous on ont ou où par pas pour qu que qui sa
sans se ses son sont sur ta te tes toi ton tu un une vos votre vous y d l j n s c m t qu
aber als am an auch auf aus bei bin bis bist da damit dann das dass dein dem den der des dessen die dies
diese dieser dieses doch dort du durch ein eine einem einen einer eines er es euch euer für hat hatte
hier ich ihm ihn ihnen ihr ihre im in ist ja jede jeder jedes kann mein meine mich mir mit muss nach
nicht noch nun nur ob oder ohne sehr sein seine sich sie sind so soll über um und uns unser unsere
unter vom von vor war waren warum was weil wenn wer werden wie wir wird wo zu zum zur
`

/** Words of work texts that describe any line ("experience", "years"), not a skill. */
const GENERIC_WORDS = `
experience experienced years year strong good excellent solid knowledge understanding ability able skills
skill proven plus including include includes etc work worked working job role responsible responsibility
ervaring jaar jaren goede kennis vaardigheden troef pluspunt werken werkte verantwoordelijk
expérience ans année bonne bonnes connaissance connaissances compétences atout travail responsable
erfahrung jahre jahren gute kenntnisse fähigkeiten vorteil arbeit verantwortlich
`

const NEGATIONS =
  'no not without never none neither nor geen niet zonder nooit pas sans aucun aucune jamais ni kein keine keinen keinem keiner keines nicht ohne nie'
const CONTRASTS = 'but however although yet maar echter hoewel mais cependant toutefois aber jedoch sondern'
const ONLY_WORDS = 'only just merely alleen enkel slechts seulement uniquement nur lediglich'

/** Headings of an employer's or benefits section, normalised words. */
const HEADINGS = [
  'what we offer',
  'we offer',
  'our offer',
  'what you get',
  'what you can expect',
  'what can you expect',
  'benefits',
  'perks',
  'why join us',
  'wat mag je verwachten',
  'wat mag u verwachten',
  'wat bieden wij',
  'wat bieden we',
  'wij bieden',
  'we bieden',
  'ons aanbod',
  'wat krijg je',
  'wat krijg je ervoor terug',
  'nous offrons',
  'nous vous offrons',
  'nous proposons',
  'ce que nous offrons',
  'ce que nous proposons',
  'ce que nous vous offrons',
  'nos avantages',
  'avantages',
  'wir bieten',
  'was wir bieten',
  'wir bieten ihnen',
  'unser angebot',
  'ihre vorteile',
  'ihre benefits',
].map((heading) => heading.split(' '))

const roles = new Map<string, number>()
const mark = (words: string, role: number) => {
  for (const word of words.split(/\s+/))
    if (word) roles.set(normaliseWord(word), (roles.get(normaliseWord(word)) ?? 0) | role)
}
mark(FUNCTION_WORDS, FUNCTION_WORD)
mark(GENERIC_WORDS, GENERIC_WORD)
mark(NEGATIONS, NEGATION)
mark(CONTRASTS, CONTRAST)
mark(ONLY_WORDS, ONLY)
for (const heading of HEADINGS) mark(heading[0] as string, HEADING_START)

/** The context role bits of a normalised word (0 for most). */
export function contextRole(norm: string): number {
  return roles.get(norm) ?? 0
}

/** The tokens of a text as the extractor holds them. */
export interface ContextTokens {
  count: number
  start: Int32Array
  end: Int32Array
  /** Where the gap before each token starts (the previous token's end). */
  gap: Int32Array
  /** The role bits of each token's word. */
  role(token: number): number
  /** The normalised text of each token's word. */
  norm(token: number): string
}

const NEGATION_REACH = 8

/**
 * Marks in `silent` (1 per token) the tokens that must not evidence a skill: those of an
 * employer or benefits section and those in the scope of a negation. Returns how many it marked.
 */
export function markSilentTokens(text: string, tokens: ContextTokens, silent: Uint8Array): number {
  const count = tokens.count
  silent.fill(0, 0, count)
  let marked = 0
  let any = false
  for (let index = 0; index < count && !any; index++)
    any = (tokens.role(index) & (NEGATION | HEADING_START)) !== 0
  if (!any) return 0
  for (let index = 0; index < count; index++) {
    const role = tokens.role(index)
    if (role & HEADING_START && startsSection(text, tokens, index)) {
      const heading = headingAt(text, tokens, index)
      if (heading > 0) {
        let end = index + heading
        while (end < count && !headingLineEndsBefore(text, tokens, end)) end++
        for (let at = index; at < end; at++) marked += silence(silent, at)
        index = end - 1
        continue
      }
    }
    if (role & NEGATION && !(index + 1 < count && tokens.role(index + 1) & ONLY)) {
      let at = index + 1
      for (; at < count && at <= index + NEGATION_REACH; at++) {
        if (clauseBreak(text, tokens, at) || tokens.role(at) & CONTRAST) break
        marked += silence(silent, at)
      }
    }
  }
  return marked
}

/** Silences a token; 1 when it was not silent yet. */
function silence(silent: Uint8Array, token: number): number {
  if (silent[token] === 1) return 0
  silent[token] = 1
  return 1
}

/** Whether token `index` begins a line or a sentence (where a heading can stand). */
function startsSection(text: string, tokens: ContextTokens, index: number): boolean {
  if (index === 0) return true
  const from = tokens.gap[index] as number
  const to = tokens.start[index] as number
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at)
    if (code === 10 || code === 13 || code === 46 || code === 33 || code === 63 || code === 8226) return true
  }
  return false
}

/** The number of words of the heading that starts at token `index`, or 0. */
function headingAt(text: string, tokens: ContextTokens, index: number): number {
  let best = 0
  for (const heading of HEADINGS) {
    if (heading.length <= best || index + heading.length > tokens.count) continue
    let same = true
    for (let at = 0; at < heading.length && same; at++) same = tokens.norm(index + at) === heading[at]
    // A heading ends its line or is followed by ':' ("What we offer: a company car").
    if (
      same &&
      (index + heading.length === tokens.count || headingBreakAfter(text, tokens, index + heading.length))
    )
      best = heading.length
  }
  return best
}

/** Whether a colon, question mark, dash or line break separates token `next` from the one before. */
function headingBreakAfter(text: string, tokens: ContextTokens, next: number): boolean {
  const from = tokens.gap[next] as number
  const to = tokens.start[next] as number
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at)
    if (code === 58 || code === 63 || code === 10 || code === 13 || code === 8211 || code === 8212)
      return true
  }
  return false
}

/** Whether token `index` starts the line after a heading line (one ending in ':' or '?'). */
function headingLineEndsBefore(text: string, tokens: ContextTokens, index: number): boolean {
  // The line of token `index`: it is a heading when its last word is followed by ':' or '?' then a line end.
  if (index === 0) return false
  const from = tokens.gap[index] as number
  const to = tokens.start[index] as number
  let newline = false
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at)
    if (code === 10 || code === 13) newline = true
  }
  if (!newline) return false
  // Find the end of this token's line and check how it ends.
  let lineEnd = text.indexOf('\n', to)
  if (lineEnd < 0) lineEnd = text.length
  let at = lineEnd - 1
  while (at >= to && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 13 || text.charCodeAt(at) === 9))
    at--
  const last = text.charCodeAt(at)
  return last === 58 || last === 63
}

/** Whether punctuation that ends a clause stands in the gap before token `index`. */
function clauseBreak(text: string, tokens: ContextTokens, index: number): boolean {
  const from = tokens.gap[index] as number
  const to = tokens.start[index] as number
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at)
    // . , ; : ! ? ( ) line breaks and bullets
    if (
      code === 46 ||
      code === 44 ||
      code === 59 ||
      code === 58 ||
      code === 33 ||
      code === 63 ||
      code === 40 ||
      code === 41 ||
      code === 10 ||
      code === 13 ||
      code === 8226
    )
      return true
  }
  return false
}
