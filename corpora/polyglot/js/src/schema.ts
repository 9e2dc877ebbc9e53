// Produced by schema-gen from schema.json.
export interface Schema {
  version(): number;
}
