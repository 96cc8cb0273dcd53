// What an AccountDO answers for GET /v1/metrics: the account's money, and the instances whose figures
// are shown with the machines to ask for them (contracts/current-usage.ts).

export interface MetricsInstance {
  id: string;
  label: string;
  gpu_model: string;
  machine_id: number;
}

export interface MetricsSources {
  balance_micros: number;
  month_spend_micros: number;
  /** The running instances the caller reaches, oldest first. */
  instances: MetricsInstance[];
}
