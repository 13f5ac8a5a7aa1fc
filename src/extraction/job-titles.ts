import { normaliseWord, scanWords } from './text-tokens.js'

/**
 * The words job titles are made of, by what they mean, in English, Dutch, French and German
 * (folded: lower case, no accents). A title reads as the meanings of its words, so titles in
 * different languages compare: "Directeur pays" and "Country Manager" both read {lead, country}.
 * Seniority, grade and scope words ("senior", "junior", "I", "general") are left out: they do
 * not change the role.
 */
const TITLE_WORDS: Record<string, readonly string[]> = {
  lead: [
    'leader',
    'leider',
    'leiding',
    'supervisor',
    'supervisors',
    'schichtfuhrer',
    'vorarbeiter',
    'meestergast',
    'foreman',
    'superviseur',
    'lead',
    'manager',
    'managers',
    'director',
    'directeur',
    'directrice',
    'direktor',
    'leiter',
    'leiterin',
    'head',
    'chef',
    'responsable',
    'hoofd',
    'leidinggevende',
    'bedrijfsleider',
    'gerant',
    'gerante',
    'geschaftsfuhrer',
    'geschaftsfuhrerin',
    'directie',
    'management',
  ],
  coordinator: ['coordinator', 'coordinatrice', 'coordinateur', 'koordinator', 'koordinatorin'],
  team: ['team', 'equipe', 'ploeg'],
  shift: ['shift', 'schicht', 'poste', 'ploegen'],
  country: ['country', 'pays', 'land', 'landes', 'national', 'nationaal'],
  site: [
    'site',
    'vestiging',
    'vestigings',
    'standort',
    'niederlassung',
    'niederlassungs',
    'plant',
    'usine',
    'werk',
  ],
  operations: [
    'operations',
    'operationeel',
    'operationele',
    'exploitation',
    'operationnel',
    'betrieb',
    'betriebs',
  ],
  worker: [
    'operative',
    'operator',
    'associate',
    'worker',
    'medewerker',
    'medewerkster',
    'mitarbeiter',
    'mitarbeiterin',
    'agent',
    'employe',
    'employee',
    'helper',
    'hulp',
    'aide',
    'assistant',
    'assistent',
    'assistentin',
    'fachkraft',
    'operateur',
    'operatrice',
    'arbeiter',
  ],
  warehouse: ['warehouse', 'magazijn', 'lager', 'entrepot', 'magasin', 'magasinier', 'storeman', 'stores'],
  logistics: [
    'logistics',
    'logistiek',
    'logistieke',
    'logistique',
    'logistik',
    'logistiker',
    'supply',
    'chain',
  ],
  inbound: ['inbound', 'goods', 'receiving', 'ontvangst', 'wareneingang', 'reception'],
  dispatch: ['expeditie', 'dispatch', 'versand', 'expedition', 'shipping', 'outbound', 'quai'],
  order: ['order', 'orders', 'commandes', 'commande', 'auftrag', 'auftrags', 'bestel', 'bestellingen'],
  picker: [
    'picker',
    'picking',
    'orderpicker',
    'kommissionierer',
    'kommissioniererin',
    'preparateur',
    'preparatrice',
    'verzamelaar',
  ],
  forklift: [
    'forklift',
    'heftruck',
    'stapler',
    'gabelstapler',
    'cariste',
    'elevateur',
    'chariot',
    'reachtruck',
    'reach',
    'truck',
  ],
  driver: [
    'driver',
    'chauffeur',
    'chauffeuse',
    'fahrer',
    'fahrerin',
    'conducteur',
    'conductrice',
    'berufskraftfahrer',
    'bestuurder',
  ],
  transport: [
    'transport',
    'wegtransport',
    'transports',
    'fernverkehr',
    'verkehr',
    'road',
    'freight',
    'fret',
    'vracht',
  ],
  planner: [
    'planner',
    'planning',
    'planificateur',
    'planificatrice',
    'planer',
    'planerin',
    'disponent',
    'disponentin',
    'dispatcher',
    'affreteur',
    'exploitant',
    'scheduler',
  ],
  inventory: ['inventory', 'stock', 'voorraad', 'bestand', 'bestands', 'inventaire', 'inventur'],
  control: [
    'controller',
    'control',
    'controle',
    'controleur',
    'controleuse',
    'controlling',
    'beheerder',
    'gestion',
  ],
  customs: ['customs', 'douane', 'zoll', 'douanier', 'declarant', 'declarante', 'deklarant', 'zollanmelder'],
  compliance: ['compliance', 'conformite', 'naleving', 'trade'],
  maintenance: [
    'maintenance',
    'onderhoud',
    'onderhouds',
    'instandhaltung',
    'wartung',
    'instandhalter',
    'entretien',
    'servicetechniker',
  ],
  technician: [
    'technician',
    'technicien',
    'technicienne',
    'technieker',
    'techniker',
    'monteur',
    'mechanic',
    'mecanicien',
    'mechaniker',
    'elektromecanicien',
    'electromecanicien',
    'elektromonteur',
    'elektriker',
    'electrician',
    'electricien',
  ],
  engineer: ['engineer', 'engineers', 'ingenieur', 'ingenieurin', 'engineering'],
  automation: ['automation', 'automatisering', 'automatisierung', 'automatisme', 'automaticien', 'plc'],
  developer: [
    'developer',
    'developers',
    'ontwikkelaar',
    'entwickler',
    'entwicklerin',
    'developpeur',
    'developpeuse',
    'programmer',
    'programmeur',
    'programmierer',
    'software',
  ],
  backend: ['backend', 'back'],
  frontend: ['frontend', 'front'],
  test: ['test', 'testing', 'tester', 'qa', 'quality', 'kwaliteit', 'qualitat', 'qualite'],
  support: ['support', 'helpdesk', 'servicedesk', 'ondersteuning', 'assistance'],
  it: ['it', 'ict', 'informatique', 'informatica', 'systeembeheerder', 'sysadmin'],
  data: ['data', 'donnees', 'daten', 'gegevens'],
  analyst: ['analyst', 'analist', 'analyste', 'analytiker', 'analytics', 'analyse'],
  bi: ['bi', 'reporting'],
  scientist: ['scientist', 'science', 'wetenschapper', 'wissenschaftler', 'scientifique'],
  ml: ['ml', 'machine', 'ai'],
  accountant: [
    'accountant',
    'accounting',
    'boekhouder',
    'boekhouding',
    'comptable',
    'comptabilite',
    'buchhalter',
    'buchhalterin',
    'buchhaltung',
    'bookkeeper',
  ],
  payables: [
    'payable',
    'payables',
    'crediteuren',
    'crediteurenadministratie',
    'fournisseurs',
    'kreditoren',
    'kreditorenbuchhalter',
  ],
  finance: [
    'finance',
    'financial',
    'financieel',
    'financiele',
    'financier',
    'financiere',
    'finanz',
    'finanzen',
    'administratief',
    'administratif',
    'administrative',
  ],
  credit: ['credit', 'debiteuren', 'debiteurenbeheer', 'recouvrement', 'forderungsmanagement'],
  hr: [
    'hr',
    'personnel',
    'personeel',
    'personal',
    'rh',
    'human',
    'resources',
    'ressources',
    'humaines',
    'personeelszaken',
  ],
  payroll: [
    'payroll',
    'loonadministratie',
    'salarisadministratie',
    'paie',
    'lohnbuchhaltung',
    'gehaltsabrechnung',
    'entgeltabrechnung',
    'lonen',
    'loon',
  ],
  recruiter: [
    'recruiter',
    'recruitment',
    'recruiting',
    'talent',
    'acquisition',
    'wervingsspecialist',
    'recruteur',
    'recruteuse',
    'recrutement',
    'personalreferent',
    'personalberater',
  ],
  learning: ['learning', 'opleiding', 'opleidingen', 'formation', 'weiterbildung', 'training'],
  partner: ['partner', 'partenaire'],
  account: ['account', 'accounts', 'comptes', 'compte', 'key', 'grands'],
  sales: [
    'sales',
    'verkoop',
    'verkoper',
    'vente',
    'ventes',
    'vendeur',
    'commercial',
    'commerciale',
    'vertrieb',
    'vertriebs',
    'verkauf',
    'verkaufer',
    'sedentaire',
    'binnendienst',
    'innendienst',
    'inside',
  ],
  business: ['business', 'affaires', 'bedrijfs', 'geschafts'],
  marketing: ['marketing', 'marketeer', 'mercatique'],
  communication: ['communication', 'communications', 'communicatie', 'kommunikation'],
  digital: ['digital', 'digitaal', 'digitale', 'numerique', 'online', 'e-commerce'],
  customer: ['customer', 'client', 'clients', 'clientele', 'klant', 'klanten', 'kunde', 'kunden'],
  service: [
    'service',
    'services',
    'dienst',
    'dienstverlening',

    'advisor',
    'adviseur',
    'conseiller',
    'conseillere',
    'berater',
    'beraterin',
  ],
  purchasing: [
    'purchasing',
    'buyer',
    'procurement',
    'inkoop',
    'inkoper',
    'achats',
    'acheteur',
    'acheteuse',
    'einkauf',
    'einkaufer',
  ],
  specialist: [
    'specialist',
    'spezialist',
    'spezialistin',
    'specialiste',
    'expert',
    'officer',
    'charge',
    'chargee',
    'gestionnaire',
    'sachbearbeiter',
    'sachbearbeiterin',
    'clerk',
    'executive',
    'representative',
    'consultant',
    'consulent',
  ],
  project: ['project', 'projet', 'projekt'],
  nurse: [
    'nurse',
    'verpleegkundige',
    'infirmier',
    'infirmiere',
    'pflegefachkraft',
    'krankenpfleger',
    'krankenschwester',
  ],
}

/** Words that carry no role: articles, prepositions, conjunctions, seniority and grades. */
const IGNORED = new Set([
  'de',
  'du',
  'des',
  'la',
  'le',
  'les',
  'l',
  'd',
  'et',
  'en',
  'and',
  'of',
  'for',
  'the',
  'a',
  'fur',
  'und',
  'der',
  'die',
  'das',
  'van',
  'het',
  'voor',
  'pour',
  'au',
  'aux',
  'in',
  'im',
  'bij',
  'at',
  'senior',
  'junior',
  'medior',
  'sr',
  'jr',
  'i',
  'ii',
  'iii',
  'iv',
  'h',
  'f',
  'm',
  'w',
  'x',
  'v',
  'mw',
  'hf',
  'mf',
  'mwd',
  'nl',
  'fr',
  'principal',
  'staff',
  'trainee',
  'stagiair',
  'stagiaire',
  'end',
  'general',
  'generale',
  'algemeen',
  'allgemein',
  'praktikant',
  'bzw',
  'or',
  'ou',
  'oder',
  'cat',
])

const MEANING = new Map<string, string>()
for (const [meaning, words] of Object.entries(TITLE_WORDS))
  for (const word of words) MEANING.set(word, meaning)
/** Words of four letters or more that Dutch and German compounds end with ("Lagermitarbeiter"). */
const COMPOUND_ENDINGS = [...MEANING.keys()]
  .filter((word) => word.length >= 4)
  .sort((a, b) => b.length - a.length)

/**
 * The terms of a job title: the meaning of each word (or, for a Dutch or German compound, of its
 * two parts: "Magazijnmedewerker" is {warehouse, worker}), else the folded word itself; words
 * that carry no role are left out.
 */
export function titleTerms(title: string): Set<string> {
  const terms = new Set<string>()
  for (const span of scanWords(title)) {
    const word = normaliseWord(title.slice(span.start, span.end))
    if (IGNORED.has(word) || /^\d+$/.test(word)) continue
    const meaning = MEANING.get(word)
    if (meaning) {
      terms.add(meaning)
      continue
    }
    const parts = compoundParts(word)
    if (parts) for (const part of parts) terms.add(part)
    else terms.add(word)
  }
  return terms
}

/** The meanings of a compound's head and its first part ("heftruckchauffeur": forklift, driver). */
function compoundParts(word: string): string[] | undefined {
  for (const ending of COMPOUND_ENDINGS) {
    if (word.length - ending.length < 3 || !word.endsWith(ending)) continue
    let head = word.slice(0, word.length - ending.length)
    const last = MEANING.get(ending) as string
    // A linking s or e between the parts ("Bestandsführung", "klantenservice").
    const first = MEANING.get(head) ?? (/[se]$/.test(head) ? MEANING.get(head.slice(0, -1)) : undefined)
    if (first) return [first, last]
    head = compoundParts(head)?.join(' ') ?? head
    return [...head.split(' '), last]
  }
  return undefined
}

/** A Job the titles of working histories are compared with. */
export interface TitledJob {
  job_id: string
  title: string
}

/** The nearest Job to a title, and how near (cosine of the titles' terms weighted by idf, 0–1). */
export interface NearestJob {
  job_id: string
  similarity: number
}

/** Below this similarity a title is no Job of the tenant. */
export const TITLE_MIN_SIMILARITY = 0.75

/**
 * The tenant's Jobs by the terms of their titles: finds the Job a free-text job title is
 * (`nearest`), in any of the four languages. Terms are weighted by their idf over the Jobs'
 * titles, so that the word that tells two roles apart ("country", "shift") weighs more than the
 * one many titles share ("manager"). Results are remembered per title: titles repeat.
 */
export class JobTitleIndex {
  private readonly jobs: { job_id: string; terms: string[]; norm: number }[] = []
  private readonly postings = new Map<string, number[]>()
  private readonly idf = new Map<string, number>()
  private readonly unseenIdf: number
  private readonly found = new Map<string, NearestJob | null>()

  constructor(jobs: readonly TitledJob[]) {
    const sorted = [...jobs].sort((a, b) => (a.job_id < b.job_id ? -1 : a.job_id > b.job_id ? 1 : 0))
    const termsOf = sorted.map((job) => [...titleTerms(job.title)])
    const documentFrequency = new Map<string, number>()
    for (const terms of termsOf)
      for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1)
    const count = sorted.length
    for (const [term, frequency] of documentFrequency) this.idf.set(term, Math.log(1 + count / frequency))
    this.unseenIdf = Math.log(1 + count)
    sorted.forEach((job, index) => {
      const terms = termsOf[index] as string[]
      if (terms.length === 0) return
      const position = this.jobs.length
      let norm = 0
      for (const term of terms) {
        norm += (this.idf.get(term) as number) ** 2
        const list = this.postings.get(term)
        if (list) list.push(position)
        else this.postings.set(term, [position])
      }
      this.jobs.push({ job_id: job.job_id, terms, norm: Math.sqrt(norm) })
    })
  }

  get size(): number {
    return this.jobs.length
  }

  /** The Job whose title is nearest to this one, when at least `TITLE_MIN_SIMILARITY` near. */
  nearest(title: string): NearestJob | undefined {
    const key = title.trim()
    const known = this.found.get(key)
    if (known !== undefined) return known ?? undefined
    const terms = titleTerms(key)
    let norm = 0
    const shared = new Map<number, number>()
    for (const term of terms) {
      const idf = this.idf.get(term) ?? this.unseenIdf
      norm += idf * idf
      for (const position of this.postings.get(term) ?? [])
        shared.set(position, (shared.get(position) ?? 0) + idf * idf)
    }
    let best: NearestJob | null = null
    // Jobs in id order: of two equally near Jobs the first id wins, whatever order they came in.
    for (const [position, dot] of [...shared].sort((a, b) => a[0] - b[0])) {
      const job = this.jobs[position] as (typeof this.jobs)[number]
      const similarity = dot / (Math.sqrt(norm) * job.norm)
      if (similarity >= TITLE_MIN_SIMILARITY && (best === null || similarity > best.similarity + 1e-12))
        best = { job_id: job.job_id, similarity: Math.min(1, similarity) }
    }
    if (this.found.size > 100_000) this.found.clear()
    this.found.set(key, best)
    return best ?? undefined
  }
}
