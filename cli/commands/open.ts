// `gpu open <id> <port>`: the address of an instance's web app (Jupyter, ComfyUI, Gradio) on its own
// origin, with a one-time ticket valid for a minute; printed, or opened in the browser with --browser.
import { ok } from "../../client/index.ts";
import { openInBrowser } from "../browser.ts";
import type { Factory } from "../factory.ts";
import { printJson } from "../format.ts";
import { integer, JSON_HELP } from "../options.ts";
import { instanceCommand } from "./instance-command.ts";

export function openCommand(f: Factory) {
  return instanceCommand("open", "Get the address of an instance's web app (a one-time link, valid 60 s) and print or open it")
    .argument("<port>", "the app's HTTP port, e.g. 8888 (Jupyter) or 8188 (ComfyUI)", integer)
    .option("--browser", "open it in the default browser (xdg-open, or open on macOS) instead of printing it")
    .option("--json", JSON_HELP)
    .action(async (id, port, options) => {
      const opened = await ok((await f.client()).POST("/v1/instances/{id}/ports/{port}/open", { params: { path: { id, port } } }));
      if (options.json) return printJson(f.io, opened);
      if (!options.browser) return f.io.out(opened.url);
      await openInBrowser(opened.url);
      if (f.io.isStderrTty) f.io.err(`Opened ${id} port ${port} in your browser (the link works once, until ${opened.expires_at}).`);
    });
}
