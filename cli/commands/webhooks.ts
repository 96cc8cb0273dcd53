// `gpu webhooks ls|create|rm|test|deliveries`: the account's webhook endpoints. A new endpoint's
// signing secret is printed once, as the API shows it once; a list never shows a secret.
import { Command } from "@commander-js/extra-typings";
import { ok, type components } from "../../client/index.ts";
import { confirmOrRefuse } from "../confirm.ts";
import type { Factory } from "../factory.ts";
import { printJson, printTable } from "../format.ts";
import { JSON_HELP } from "../options.ts";
import { readCommand } from "./read-command.ts";

export function webhooksCommand(f: Factory) {
  return new Command("webhooks")
    .description("Manage your webhook endpoints: ls, create, rm, test, deliveries")
    .addCommand(listWebhooks(f))
    .addCommand(createWebhook(f))
    .addCommand(removeWebhook(f))
    .addCommand(testWebhook(f))
    .addCommand(listDeliveries(f));
}

const path = (id: string) => ({ params: { path: { id } } });

function listWebhooks(f: Factory) {
  return readCommand(
    f, "ls", "List your webhook endpoints (never their secrets)",
    (api) => ok(api.GET("/v1/webhooks")),
    (list) => printTable(f.io, ["ID", "URL", "EVENTS", "ENABLED", "DESCRIPTION"],
      list.items.map((w) => [w.id, w.url, w.events.join(","), w.enabled ? "yes" : `no${w.disabled_reason ? ` (${w.disabled_reason})` : ""}`, w.description])),
  );
}

function createWebhook(f: Factory) {
  return new Command("create")
    .description("Add a webhook endpoint; its signing secret is shown this once")
    .argument("<url>", "where events are POSTed (https)")
    .option("--events <types>", "comma-separated event types (default: all)")
    .option("--description <text>", "a note to tell endpoints apart")
    .option("--json", JSON_HELP)
    .action(async (url, options) => {
      // Checked by the API, which names an unknown type.
      const events = options.events?.split(",").map((t) => t.trim()) as NonNullable<components["schemas"]["CreateWebhook"]["events"]> | undefined;
      const created = await ok((await f.client()).POST("/v1/webhooks", { body: { url, events, description: options.description } }));
      if (options.json) return printJson(f.io, created);
      f.io.out(created.secret);
      if (f.io.isStderrTty) f.io.err(`Created ${created.id}: keep the signing secret above now, it is not shown again.`);
    });
}

function removeWebhook(f: Factory) {
  return new Command("rm")
    .description("Delete a webhook endpoint and its deliveries")
    .argument("<webhook-id>", "the endpoint's id (wh_..., from `gpu webhooks ls`)")
    .option("-y, --yes", "do not ask for confirmation (needed when not on a terminal)")
    .option("--json", `${JSON_HELP} (the endpoints left)`)
    .action(async (id, options) => {
      if (!options.yes) await confirmOrRefuse(f, `Delete ${id}?`, `deleting ${id} cannot be undone: pass --yes to confirm`, "not deleted");
      const api = await f.client();
      await ok(api.DELETE("/v1/webhooks/{id}", path(id)));
      if (options.json) return printJson(f.io, await ok(api.GET("/v1/webhooks")));
      if (f.io.isStdoutTty) f.io.out(`✓ Deleted ${id}`);
    });
}

function testWebhook(f: Factory) {
  return new Command("test")
    .description("Send a webhook.test event to an endpoint; see it in `gpu webhooks deliveries`")
    .argument("<webhook-id>", "the endpoint's id")
    .option("--json", `${JSON_HELP} (the endpoint's deliveries, the test's first)`)
    .action(async (id, options) => {
      const api = await f.client();
      await ok(api.POST("/v1/webhooks/{id}/test", path(id)));
      if (options.json) return printJson(f.io, await ok(api.GET("/v1/webhooks/{id}/deliveries", path(id))));
      f.io.out(`✓ Test event queued for ${id}`);
    });
}

function listDeliveries(f: Factory) {
  return new Command("deliveries")
    .description("An endpoint's last 100 deliveries, newest first")
    .argument("<webhook-id>", "the endpoint's id")
    .option("--json", JSON_HELP)
    .action(async (id, options) => {
      const list = await ok((await f.client()).GET("/v1/webhooks/{id}/deliveries", path(id)));
      if (options.json) return printJson(f.io, list);
      printTable(f.io, ["ID", "TYPE", "STATUS", "ATTEMPTS", "LAST CODE", "NEXT ATTEMPT", "LAST ERROR"],
        list.items.map((d) => [d.id, d.type, d.status, String(d.attempts), d.last_status_code === null ? "-" : String(d.last_status_code), d.next_attempt_at ?? "-", d.last_error ?? ""]));
    });
}
