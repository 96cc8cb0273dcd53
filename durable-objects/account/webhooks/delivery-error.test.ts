// A failed delivery's `last_error` names the real failure, for each kind, through the real sender
// and workerd's own fetch: no connection (nothing listening), a name that does not resolve, an answer
// that is not 2xx, and no answer in time. The receiver is a Node server on the loopback host
// (test/support/webhook-receiver.ts).
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { webhookReceiverUrl } from "../../../test/support/workerd/webhook-receiver-url.ts";
import { WEBHOOK_TIMEOUT_MS } from "./webhook-sender.ts";

// Endpoints on a loopback host are taken while the service runs on one.
const LOOPBACK = "http://127.0.0.1:8787";

const attempted = (accountId: string) => runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) =>
  state.storage.sql.exec("SELECT d.webhook_id, d.attempts, d.last_status_code, d.last_error FROM webhook_deliveries d").toArray() as unknown as
    { webhook_id: string; attempts: number; last_status_code: number | null; last_error: string | null }[]);

it("last_error says why: no connection, a name that does not resolve, a status, no answer in time", async () => {
  const receiver = webhookReceiverUrl();
  const urls = {
    refused: "http://127.0.0.1:9/hook",
    unresolved: "https://no-such-host.invalid/hook",
    status: `${receiver}/status/503`,
    hang: `${receiver}/hang`,
  };
  const { id: accountId, key } = await newAccount();
  const ids: Record<string, string> = {};
  for (const [kind, url] of Object.entries(urls)) {
    ids[kind] = (await callJson<{ id: string }>("POST", "/v1/webhooks", { key, body: { url }, base: LOOPBACK })).body.id;
    expect((await callJson("POST", `/v1/webhooks/${ids[kind]}/test`, { key })).status).toBe(202);
  }
  const rows = await until(() => attempted(accountId), (r) => r.length === 4 && r.every((row) => row.attempts >= 1), "an attempt to each", (WEBHOOK_TIMEOUT_MS + 10_000) / 20);
  const byKind = Object.fromEntries(Object.entries(ids).map(([kind, id]) => [kind, rows.find((row) => row.webhook_id === id)]));
  expect(byKind.refused).toMatchObject({ last_status_code: null, last_error: "could not connect to 127.0.0.1:9, or the connection was cut before an answer (refused: nothing listening there?)" });
  expect(byKind.unresolved).toMatchObject({
    last_status_code: null, last_error: expect.stringMatching(/^could not reach no-such-host\.invalid:443: its name does not resolve \(DNS\), or no connection could be made \(reference \w+\)$/),
  });
  expect(byKind.status).toMatchObject({ last_status_code: 503, last_error: "HTTP 503: the receiver answered 503" });
  expect(byKind.hang).toMatchObject({ last_status_code: null, last_error: "no answer within 10 s" });
}, WEBHOOK_TIMEOUT_MS + 30_000);
