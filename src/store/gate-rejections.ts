/** The stop gate's rejection counter's row (its meaning: src/gate/breaker.ts; the statements: queries/records.ts). */

export interface RejectionRow {
  key: string;
  attempts: number;
  tripped: 0 | 1;
  last_codes_json: string;
  contract_id: string | null;
  updated_at: string;
}
