/**
 * What the generated tenant's texts and places are made of: the languages they are written in,
 * the cities people and vacancies are in, sentence templates per text kind and language, names,
 * seniorities and the mix of skill event types.
 */
/** The languages the generated texts are written in. */
export type Lang = 'en' | 'nl' | 'fr' | 'de'
export const LANGS: Lang[] = ['en', 'nl', 'fr', 'de']

/** Cities of the generated people, vacancies and companies, with the language spoken there. */
export const CITIES: { country: string; postal: string; lat: number; lng: number; lang: Lang }[] = [
  { country: 'BE', postal: '1000', lat: 50.8466, lng: 4.3528, lang: 'nl' },
  { country: 'BE', postal: '2000', lat: 51.2194, lng: 4.4025, lang: 'nl' },
  { country: 'BE', postal: '9000', lat: 51.0543, lng: 3.7174, lang: 'nl' },
  { country: 'BE', postal: '4000', lat: 50.6326, lng: 5.5797, lang: 'fr' },
  { country: 'NL', postal: '1012', lat: 52.3731, lng: 4.8926, lang: 'nl' },
  { country: 'NL', postal: '3011', lat: 51.9225, lng: 4.4792, lang: 'nl' },
  { country: 'NL', postal: '3511', lat: 52.0907, lng: 5.1214, lang: 'nl' },
  { country: 'NL', postal: '5611', lat: 51.4416, lng: 5.4697, lang: 'nl' },
  { country: 'FR', postal: '75001', lat: 48.8603, lng: 2.3477, lang: 'fr' },
  { country: 'FR', postal: '69001', lat: 45.7676, lng: 4.8344, lang: 'fr' },
  { country: 'FR', postal: '59000', lat: 50.6292, lng: 3.0573, lang: 'fr' },
  { country: 'DE', postal: '10115', lat: 52.532, lng: 13.3849, lang: 'de' },
  { country: 'DE', postal: '50667', lat: 50.9375, lng: 6.9603, lang: 'de' },
  { country: 'DE', postal: '80331', lat: 48.1374, lng: 11.5755, lang: 'de' },
  { country: 'GB', postal: 'EC1A', lat: 51.5203, lng: -0.0986, lang: 'en' },
  { country: 'GB', postal: 'M1', lat: 53.4794, lng: -2.2453, lang: 'en' },
  { country: 'GB', postal: 'EH1', lat: 55.9521, lng: -3.1965, lang: 'en' },
]

/** Sentence templates per language and kind of text; `{n}` takes a word of a skill. */
export const TEMPLATES: Record<
  Lang,
  {
    job: string[]
    project: string[]
    learning: string[]
    ticket: string[]
    feedback: string[]
    goal: string[]
  }
> = {
  en: {
    job: [
      'Responsible for {0} and {1}; day to day work with {2}.',
      'Led the {0} work stream, introduced {1} and coached colleagues in {2}.',
      'Hands-on {0} with a strong focus on {1} and {2}.',
    ],
    project: [
      'Delivered a {0} project using {1} and {2}.',
      'Migrated the team to {0}; set up {1} and documented {2}.',
      'Built a proof of concept combining {0} with {1}.',
    ],
    learning: ['Course on {0} and {1}', 'Advanced {0} workshop', 'Introduction to {0} with exercises in {1}'],
    ticket: [
      'Fix {0} issue in the {1} module',
      'Add {0} support to the {1} report',
      'Investigate {0} failure after {1} change',
    ],
    feedback: [
      'Shows real expertise in {0} and is the go-to person for {1}.',
      'Very strong in {0}; should grow in {1}.',
    ],
    goal: ['Become proficient in {0}', 'Obtain a certification in {0} and apply {1}'],
  },
  nl: {
    job: [
      'Verantwoordelijk voor {0} en {1}; dagelijks werk met {2}.',
      'Trok het {0}-traject, voerde {1} in en coachte collega’s in {2}.',
      'Praktische ervaring met {0}, met focus op {1} en {2}.',
    ],
    project: [
      'Project opgeleverd rond {0} met {1} en {2}.',
      'Migratie naar {0} begeleid; {1} opgezet en {2} gedocumenteerd.',
    ],
    learning: ['Opleiding {0} en {1}', 'Workshop {0} voor gevorderden'],
    ticket: ['Probleem met {0} in module {1} oplossen', 'Ondersteuning voor {0} toevoegen aan {1}'],
    feedback: [
      'Toont echte expertise in {0} en is het aanspreekpunt voor {1}.',
      'Zeer sterk in {0}; kan nog groeien in {1}.',
    ],
    goal: ['Vaardig worden in {0}', 'Certificaat behalen in {0} en {1} toepassen'],
  },
  fr: {
    job: [
      'Responsable de {0} et de {1} ; travail quotidien avec {2}.',
      'A piloté le chantier {0}, introduit {1} et formé les collègues à {2}.',
      'Expérience concrète en {0}, avec un accent sur {1} et {2}.',
    ],
    project: [
      'Projet livré autour de {0} avec {1} et {2}.',
      'Migration vers {0} ; mise en place de {1} et documentation de {2}.',
    ],
    learning: ['Formation {0} et {1}', 'Atelier avancé {0}'],
    ticket: ['Corriger un problème de {0} dans le module {1}', 'Ajouter la prise en charge de {0} dans {1}'],
    feedback: [
      'Fait preuve d’une vraie expertise en {0} et est la référence pour {1}.',
      'Très solide en {0} ; peut progresser en {1}.',
    ],
    goal: ['Maîtriser {0}', 'Obtenir une certification en {0} et appliquer {1}'],
  },
  de: {
    job: [
      'Verantwortlich für {0} und {1}; tägliche Arbeit mit {2}.',
      'Leitete den Bereich {0}, führte {1} ein und schulte Kollegen in {2}.',
      'Praktische Erfahrung in {0} mit Schwerpunkt auf {1} und {2}.',
    ],
    project: [
      'Projekt rund um {0} mit {1} und {2} umgesetzt.',
      'Migration auf {0} begleitet; {1} eingeführt und {2} dokumentiert.',
    ],
    learning: ['Schulung {0} und {1}', 'Fortgeschrittenen-Workshop {0}'],
    ticket: ['Fehler bei {0} im Modul {1} beheben', 'Unterstützung für {0} in {1} ergänzen'],
    feedback: [
      'Zeigt echte Expertise in {0} und ist Ansprechpartner für {1}.',
      'Sehr stark in {0}; Entwicklungspotenzial bei {1}.',
    ],
    goal: ['Sicher werden in {0}', 'Zertifizierung in {0} erwerben und {1} anwenden'],
  },
}

/** First names of the generated employees. */
export const FIRST_NAMES = [
  'Anna',
  'Pieter',
  'Sophie',
  'Lukas',
  'Emma',
  'Thomas',
  'Julie',
  'Jan',
  'Marie',
  'David',
  'Sarah',
  'Noah',
  'Lena',
  'Hugo',
  'Eva',
  'Tom',
  'Léa',
  'Max',
  'Fleur',
  'Omar',
]
/** Last names of the generated employees. */
export const LAST_NAMES = [
  'Peeters',
  'Janssens',
  'de Vries',
  'Bakker',
  'Martin',
  'Bernard',
  'Müller',
  'Schmidt',
  'Smith',
  'Jones',
  'Dubois',
  'Visser',
  'Maes',
  'Weber',
  'Taylor',
  'Lambert',
  'Meyer',
  'Claes',
  'Wouters',
  'Brown',
]
/** Seniorities that open job, vacancy and working-history titles. */
export const SENIORITY = ['Junior', 'Medior', 'Senior', 'Lead', 'Principal']
/** Skill event types and their weights in the generated mix. */
export const EVENT_MIX: [string, number][] = [
  ['working_history', 22],
  ['learning', 14],
  ['project', 14],
  ['education_history', 5],
  ['certificate', 5],
  ['resume_document', 4],
  ['feedback', 6],
  ['goal', 5],
  ['ticket', 10],
  ['merge_request', 8],
  ['skill_notes', 5],
  ['skill_profile_feedback', 2],
]
