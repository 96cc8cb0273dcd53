// GET /v1/metrics on the real stack, read as a Prometheus server reads it: a key holding only
// instances:read scrapes it, and an exposition-format parser that is not ours
// (parse-prometheus-text-format) reads every family with its type, the running instance's GPU and
// container series labelled with its id and its label (unescaped back to what was given), the
// account's balance and month's spend between /v1/me's before and after, and the instance gone from
// it once stopped.
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { poll, useE2eStack } from "./support/e2e-stack.ts";

// Agents sample every second, so the export has figures without waiting 10 s.
const stack = useE2eStack({}, { AGENT_METRICS_INTERVAL_MS: "1000" });

const TYPES = {
  gpu_rental_account_balance_micros: "GAUGE",
  gpu_rental_account_month_spend_micros: "GAUGE",
  gpu_rental_instance_running: "GAUGE",
  gpu_rental_gpu_utilization_ratio: "GAUGE",
  gpu_rental_gpu_memory_used_bytes: "GAUGE",
  gpu_rental_gpu_memory_total_bytes: "GAUGE",
  gpu_rental_gpu_power_watts: "GAUGE",
  gpu_rental_gpu_temperature_celsius: "GAUGE",
  gpu_rental_container_cpu_seconds_total: "COUNTER",
  gpu_rental_container_memory_bytes: "GAUGE",
};

type Money = { balance_micros: number; month_spend_micros: number };

const family = (families: ParsedFamily[], name: string) => families.find((f) => f.name === name)!;
const seriesOf = (families: ParsedFamily[], name: string, instanceId: string) =>
  family(families, name).metrics.filter((sample) => sample.labels?.instance_id === instanceId);
const valueOf = (families: ParsedFamily[], name: string) => Number(family(families, name).metrics[0]!.value);

describe("GET /v1/metrics scraped with a key holding instances:read", () => {
  it("parses as the text exposition format: every family typed, the instance's series labelled, the money between /v1/me's readings, a stopped instance gone", async () => {
    const made = await stack.api<{ key: string }>("POST", "/v1/keys", { name: "prometheus", scopes: ["instances:read"] });
    expect(made.status).toBe(201);
    const label = 'trainer "7b"\\run';
    const instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", label });

    const scrape = async () => {
      const response = await fetch(`${stack.baseUrl}/v1/metrics`, { headers: { authorization: `Bearer ${made.body.key}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      return parsePrometheusTextFormat(await response.text());
    };
    await poll(scrape, (families) => seriesOf(families, "gpu_rental_container_memory_bytes", instance.id).length === 1);
    const before = (await stack.api<Money>("GET", "/v1/me")).body;
    const families = await scrape();
    const after = (await stack.api<Money>("GET", "/v1/me")).body;

    expect(Object.fromEntries(families.map((f) => [f.name, f.type]))).toEqual(TYPES);
    expect(seriesOf(families, "gpu_rental_instance_running", instance.id)).toEqual([
      { labels: { instance_id: instance.id, label, gpu_model: "rtx4090" }, value: "1" },
    ]);
    for (const name of ["gpu_rental_gpu_utilization_ratio", "gpu_rental_gpu_memory_used_bytes", "gpu_rental_gpu_memory_total_bytes", "gpu_rental_gpu_power_watts", "gpu_rental_gpu_temperature_celsius"]) {
      const [gpu, ...more] = seriesOf(families, name, instance.id);
      expect(more, name).toEqual([]);
      expect(gpu!.labels, name).toEqual({ instance_id: instance.id, label, gpu: expect.stringMatching(/^\d+$/) });
      expect(Number(gpu!.value), name).toBeGreaterThanOrEqual(0);
    }
    const [utilization] = seriesOf(families, "gpu_rental_gpu_utilization_ratio", instance.id);
    expect(Number(utilization!.value)).toBeLessThanOrEqual(1);
    const used = Number(seriesOf(families, "gpu_rental_gpu_memory_used_bytes", instance.id)[0]!.value);
    expect(used).toBeLessThanOrEqual(Number(seriesOf(families, "gpu_rental_gpu_memory_total_bytes", instance.id)[0]!.value));
    for (const name of ["gpu_rental_container_cpu_seconds_total", "gpu_rental_container_memory_bytes"]) {
      expect(seriesOf(families, name, instance.id), name).toEqual([{ labels: { instance_id: instance.id, label }, value: expect.any(String) }]);
    }
    expect(Number(seriesOf(families, "gpu_rental_container_memory_bytes", instance.id)[0]!.value)).toBeGreaterThan(0);

    const balance = valueOf(families, "gpu_rental_account_balance_micros");
    const spend = valueOf(families, "gpu_rental_account_month_spend_micros");
    expect(balance).toBeLessThanOrEqual(before.balance_micros);
    expect(balance).toBeGreaterThanOrEqual(after.balance_micros);
    expect(spend).toBeGreaterThanOrEqual(before.month_spend_micros);
    expect(spend).toBeLessThanOrEqual(after.month_spend_micros);
    expect(spend).toBeGreaterThan(0);

    // The key reads; it cannot stop what it watches.
    expect(await stack.api("POST", `/v1/instances/${instance.id}/stop`, undefined, made.body.key)).toMatchObject({
      status: 403, body: { error: "forbidden", message: expect.stringContaining("instances:write") },
    });
    expect((await stack.api("POST", `/v1/instances/${instance.id}/stop`)).status).toBe(204);
    const stopped = await poll(scrape, (later) => seriesOf(later, "gpu_rental_instance_running", instance.id).length === 0);
    for (const name of Object.keys(TYPES)) expect(seriesOf(stopped, name, instance.id), name).toEqual([]);
  }, 120_000);
});
