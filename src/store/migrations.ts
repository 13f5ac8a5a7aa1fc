/**
 * Numbered schema migrations of a tenant database, applied in order on open. A database made by
 * an older skillhouse upgrades itself; a database from a newer one is refused. Never edit a
 * migration that has shipped: add the next number.
 */
export interface Migration {
  version: number
  name: string
  sql: string
}

const entityTable = (name: string, references: string[] = []) => `
CREATE TABLE ${name} (
  external_id VARCHAR PRIMARY KEY,
  ${references.map((column) => `${column} VARCHAR,`).join('\n  ')}
  doc JSON NOT NULL,
  doc_hash VARCHAR NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  change_seq BIGINT NOT NULL
);`

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'entities, skill events and taxonomy',
    sql: `
CREATE SEQUENCE change_seq START 1;
CREATE TABLE settings (key VARCHAR PRIMARY KEY, value JSON NOT NULL);
CREATE TABLE custom_property_definitions (
  entity_type VARCHAR NOT NULL,
  property_name VARCHAR NOT NULL,
  property_type VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL,
  PRIMARY KEY (entity_type, property_name)
);
${entityTable('companies')}
${entityTable('organisational_units', ['parent_id'])}
${entityTable('job_families')}
${entityTable('jobs', ['job_family_id'])}
${entityTable('employees', ['organisational_unit_id', 'job_id'])}
${entityTable('vacancies', ['status', 'job_id', 'company_id', 'organisational_unit_id'])}
${entityTable('courses')}
CREATE TABLE match_feedback (
  employee_id VARCHAR NOT NULL,
  vacancy_id VARCHAR NOT NULL,
  feedback VARCHAR NOT NULL,
  timestamp DATE NOT NULL,
  change_seq BIGINT NOT NULL,
  PRIMARY KEY (employee_id, vacancy_id)
);
CREATE TABLE skill_events (
  external_id VARCHAR PRIMARY KEY,
  employee_id VARCHAR NOT NULL,
  event_type VARCHAR NOT NULL,
  timestamp DATE NOT NULL,
  content JSON NOT NULL,
  source VARCHAR NOT NULL,
  content_hash VARCHAR NOT NULL,
  received_at TIMESTAMP NOT NULL,
  change_seq BIGINT NOT NULL
);
CREATE TABLE ingested_files (
  checksum VARCHAR NOT NULL,
  path VARCHAR NOT NULL,
  entity VARCHAR NOT NULL,
  rows_read BIGINT NOT NULL,
  rows_written BIGINT NOT NULL,
  rows_rejected BIGINT NOT NULL,
  finished_at TIMESTAMP NOT NULL
);
CREATE TABLE domains (
  external_id VARCHAR NOT NULL, external_vendor VARCHAR NOT NULL, domain_name VARCHAR NOT NULL,
  custom BOOLEAN NOT NULL, custom_properties JSON, updated_at TIMESTAMP NOT NULL,
  PRIMARY KEY (external_vendor, external_id)
);
CREATE TABLE subdomains (
  external_id VARCHAR NOT NULL, external_vendor VARCHAR NOT NULL, domain_id VARCHAR NOT NULL,
  subdomain_name VARCHAR NOT NULL, custom BOOLEAN NOT NULL, custom_properties JSON,
  updated_at TIMESTAMP NOT NULL, PRIMARY KEY (external_vendor, external_id)
);
CREATE TABLE skill_clusters (
  external_id VARCHAR NOT NULL, external_vendor VARCHAR NOT NULL, subdomain_id VARCHAR NOT NULL,
  skill_cluster_name VARCHAR NOT NULL, custom BOOLEAN NOT NULL, custom_properties JSON,
  updated_at TIMESTAMP NOT NULL, PRIMARY KEY (external_vendor, external_id)
);
CREATE TABLE skills (
  external_id VARCHAR NOT NULL, external_vendor VARCHAR NOT NULL, skill_cluster_id VARCHAR,
  skill_type VARCHAR NOT NULL, description VARCHAR, custom BOOLEAN NOT NULL,
  custom_properties JSON, content_hash VARCHAR NOT NULL, updated_at TIMESTAMP NOT NULL,
  PRIMARY KEY (external_vendor, external_id)
);
CREATE TABLE skill_labels (
  external_vendor VARCHAR NOT NULL, skill_id VARCHAR NOT NULL, language VARCHAR NOT NULL,
  kind VARCHAR NOT NULL, label VARCHAR NOT NULL
);
CREATE TABLE outbox (
  seq BIGINT PRIMARY KEY,
  id VARCHAR NOT NULL UNIQUE,
  type VARCHAR NOT NULL,
  source VARCHAR NOT NULL,
  subject VARCHAR,
  time TIMESTAMP NOT NULL,
  data JSON NOT NULL
);
CREATE SEQUENCE outbox_seq START 1;
`,
  },
  {
    version: 2,
    name: 'batch runs and the employee index of skill events',
    sql: `
CREATE TABLE runs (
  run_id VARCHAR PRIMARY KEY,
  kind VARCHAR NOT NULL,
  started_at TIMESTAMP NOT NULL,
  finished_at TIMESTAMP,
  status VARCHAR NOT NULL,
  stage VARCHAR,
  summary JSON
);
CREATE INDEX skill_events_employee ON skill_events (employee_id);
`,
  },
  {
    version: 3,
    name: 'taxonomy changes',
    sql: `
CREATE TABLE taxonomy_changes (
  external_id VARCHAR PRIMARY KEY,
  operation_type VARCHAR NOT NULL,
  entity_external_id VARCHAR,
  external_vendor VARCHAR NOT NULL,
  details JSON NOT NULL,
  time TIMESTAMP NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'skill profiles, their versions and derivation state',
    sql: `
ALTER TABLE skill_events ADD COLUMN language VARCHAR DEFAULT 'auto';
ALTER TABLE skill_events ADD COLUMN ended_on DATE;
CREATE TABLE profile_skills (
  entity_type VARCHAR NOT NULL,
  entity_id VARCHAR NOT NULL,
  external_vendor VARCHAR NOT NULL,
  skill_id VARCHAR NOT NULL,
  validation_state VARCHAR NOT NULL,
  score DOUBLE NOT NULL,
  proficiency_float DOUBLE,
  proficiency_level INTEGER,
  governed_proficiency_level INTEGER,
  governed_critical BOOLEAN,
  inferred_critical BOOLEAN,
  first_seen DATE,
  last_seen DATE,
  evidence JSON NOT NULL,
  PRIMARY KEY (entity_type, entity_id, external_vendor, skill_id)
);
CREATE TABLE skill_profiles (
  entity_type VARCHAR NOT NULL,
  entity_id VARCHAR NOT NULL,
  external_vendor VARCHAR NOT NULL,
  version INTEGER NOT NULL,
  profile_hash VARCHAR NOT NULL,
  suggested_hash VARCHAR NOT NULL,
  skill_count INTEGER NOT NULL,
  low_data BOOLEAN NOT NULL,
  computed_at TIMESTAMP NOT NULL,
  PRIMARY KEY (entity_type, entity_id, external_vendor)
);
CREATE TABLE skill_profile_versions (
  entity_type VARCHAR NOT NULL,
  entity_id VARCHAR NOT NULL,
  external_vendor VARCHAR NOT NULL,
  version INTEGER NOT NULL,
  profile_hash VARCHAR NOT NULL,
  computed_at TIMESTAMP NOT NULL,
  skills JSON NOT NULL
);
CREATE TABLE derive_state (key VARCHAR PRIMARY KEY, value JSON NOT NULL);
`,
  },
  {
    version: 5,
    name: 'postal codes for geo-distance matching',
    sql: `
CREATE TABLE postal_codes (
  country VARCHAR NOT NULL,
  postal_code VARCHAR NOT NULL,
  place VARCHAR,
  state VARCHAR,
  lat DOUBLE NOT NULL,
  lng DOUBLE NOT NULL,
  places INTEGER NOT NULL,
  source VARCHAR NOT NULL,
  imported_at TIMESTAMP NOT NULL,
  PRIMARY KEY (country, postal_code)
);
`,
  },
  {
    version: 6,
    name: 'job change previews',
    sql: `
CREATE TABLE job_change_previews (
  change_id VARCHAR PRIMARY KEY,
  change_type VARCHAR NOT NULL,
  job_id VARCHAR NOT NULL,
  language VARCHAR NOT NULL,
  request JSON NOT NULL,
  preview JSON NOT NULL,
  created_at TIMESTAMP NOT NULL
);
`,
  },
  {
    version: 7,
    name: 'webhook subscriptions and their delivery log',
    sql: `
CREATE TABLE webhook_subscriptions (
  id VARCHAR PRIMARY KEY,
  url VARCHAR NOT NULL,
  event_types VARCHAR[] NOT NULL,
  status VARCHAR NOT NULL,
  cursor_seq BIGINT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  removed_at TIMESTAMP
);
CREATE TABLE webhook_deliveries (
  subscription_id VARCHAR NOT NULL,
  outbox_seq BIGINT NOT NULL,
  event_id VARCHAR NOT NULL,
  event_type VARCHAR NOT NULL,
  state VARCHAR NOT NULL,
  attempts INTEGER NOT NULL,
  last_status INTEGER,
  last_error VARCHAR,
  next_attempt_at TIMESTAMP,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  delivered_at TIMESTAMP,
  PRIMARY KEY (subscription_id, outbox_seq)
);
`,
  },
  {
    // DuckDB writes a table's whole index at every checkpoint: with millions of profile skills the
    // key of profile_skills cost seconds at the end of each derivation, however few profiles
    // changed, and sped up no read (no query names all four key columns). Derivation deletes a
    // changed profile's skills before it inserts them again, so one skill per profile stays a rule
    // of that code, checked by its tests. DuckDB cannot drop a key: the table is built again.
    version: 8,
    name: 'profile skills without an index',
    sql: `
CREATE TABLE profile_skills_unindexed (
  entity_type VARCHAR NOT NULL,
  entity_id VARCHAR NOT NULL,
  external_vendor VARCHAR NOT NULL,
  skill_id VARCHAR NOT NULL,
  validation_state VARCHAR NOT NULL,
  score DOUBLE NOT NULL,
  proficiency_float DOUBLE,
  proficiency_level INTEGER,
  governed_proficiency_level INTEGER,
  governed_critical BOOLEAN,
  inferred_critical BOOLEAN,
  first_seen DATE,
  last_seen DATE,
  evidence JSON NOT NULL
);
INSERT INTO profile_skills_unindexed SELECT * FROM profile_skills ORDER BY entity_type, entity_id, external_vendor, skill_id;
DROP TABLE profile_skills;
ALTER TABLE profile_skills_unindexed RENAME TO profile_skills;
`,
  },
  {
    // The outbox grows by one or two events per changed profile, and its key (seq) and unique id
    // were two indexes that DuckDB wrote whole at every checkpoint: about a second per derivation
    // at 200,000 events, however few events it added. Neither sped up a read (the readers filter
    // seq ranges, which the row groups' min/max answer), and both values are unique by how they are
    // made: seq from the outbox_seq sequence, id a random UUID (`appendEvents`).
    version: 9,
    name: 'outbox without indexes',
    sql: `
CREATE TABLE outbox_unindexed (
  seq BIGINT NOT NULL,
  id VARCHAR NOT NULL,
  type VARCHAR NOT NULL,
  source VARCHAR NOT NULL,
  subject VARCHAR,
  time TIMESTAMP NOT NULL,
  data JSON NOT NULL
);
INSERT INTO outbox_unindexed SELECT * FROM outbox ORDER BY seq;
DROP TABLE outbox;
ALTER TABLE outbox_unindexed RENAME TO outbox;
`,
  },
  {
    // Webhook delivery retries for a time window rather than a number of attempts, each
    // subscription may carry its own policy, and a subscription whose consumer is down waits as a
    // whole (retry_at) instead of each of its events. queued_at starts an event's window: when it
    // was queued, or replayed.
    version: 10,
    name: 'webhook retry windows and per-subscription state',
    sql: `
ALTER TABLE webhook_subscriptions ADD COLUMN retry_window_ms BIGINT;
ALTER TABLE webhook_subscriptions ADD COLUMN backoff_base_ms BIGINT;
ALTER TABLE webhook_subscriptions ADD COLUMN backoff_cap_ms BIGINT;
ALTER TABLE webhook_subscriptions ADD COLUMN timeout_ms BIGINT;
ALTER TABLE webhook_subscriptions ADD COLUMN retry_at TIMESTAMP;
ALTER TABLE webhook_subscriptions ADD COLUMN last_error VARCHAR;
ALTER TABLE webhook_subscriptions ADD COLUMN last_error_at TIMESTAMP;
ALTER TABLE webhook_deliveries ADD COLUMN queued_at TIMESTAMP;
UPDATE webhook_deliveries SET queued_at = created_at;
`,
  },
]

export const LATEST_SCHEMA_VERSION = Math.max(0, ...MIGRATIONS.map((migration) => migration.version))
