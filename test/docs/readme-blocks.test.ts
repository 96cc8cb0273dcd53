// Every shell and TypeScript block of the README says whether it is a walkthrough (run by
// test/e2e/readme-walkthroughs.test.ts), one the local stack cannot run, or none, so a new example
// is never left out unnoticed; and the reading of blocks, commands and shown answers that test relies on.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { commentStart, readBlocks, scriptOf, shellCommands, shownKeys } from "./readme-blocks.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const blocks = readBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));

describe("the README's code blocks", () => {
  it("each sh and ts block is marked a walkthrough, a skipped one with its reason, or not a walkthrough with its reason", () => {
    const unmarked = blocks.filter((block) => ["sh", "ts"].includes(block.lang) && block.mark === null).map((block) => `README.md:${block.line}`);
    expect(unmarked).toEqual([]);
    for (const block of blocks) {
      if (block.mark && "reason" in block.mark) expect(block.mark.reason, `README.md:${block.line}`).not.toBe("");
    }
  });

  it("each ts walkthrough names its file on its first line", () => {
    for (const block of blocks.filter((b) => b.lang === "ts" && b.mark?.kind === "walkthrough")) expect(() => scriptOf(block)).not.toThrow();
  });
});

describe("reading a block", () => {
  const markdown = [
    "<!-- walkthrough: api -->",
    "```sh",
    'curl "${auth[@]}" $API/me              # {"account": {"id", "email"}, "balance_micros"}',
    "# a comment of its own",
    "curl -X POST \\",
    "  $API/x   # 204; done",
    "curl $API/metrics   # the last hour",
    '# {"window": "1h",',
    '#  "gpus": [{"index": 0}], "container": []}',
    "npx gpu events $id --follow   # as they happen (Ctrl-C ends)",
    "npx node receiver.ts &",
    "echo '# not a comment' \"#nor this\"",
    "```",
    "  <!-- walkthrough: card, skipped: needs Stripe -->",
    "  ```sh",
    "  true",
    "  ```",
    "<!-- not a walkthrough: a reference list -->",
    "```ts",
    "// chat.ts: run with `ID=$id npx node chat.ts`",
    "```",
  ].join("\n");

  it("takes each block with its mark, an indented one too", () => {
    expect(readBlocks(markdown).map((block) => [block.line, block.lang, block.mark])).toEqual([
      [2, "sh", { kind: "walkthrough", name: "api" }],
      [15, "sh", { kind: "skipped", name: "card", reason: "needs Stripe" }],
      [19, "ts", { kind: "not-walkthrough", reason: "a reference list" }],
    ]);
    expect(readBlocks(markdown)[1]!.text).toBe("true");
  });

  it("splits an sh block into commands, with the status and keys shown, Ctrl-C and background noted", () => {
    const commands = shellCommands(readBlocks(markdown)[0]!);
    expect(commands.map(({ line, status, keys, interrupted, background }) => ({ line, status, keys, interrupted, background }))).toEqual([
      { line: 3, status: null, keys: ["account", "balance_micros"], interrupted: false, background: false },
      { line: 5, status: 204, keys: null, interrupted: false, background: false },
      { line: 7, status: null, keys: ["window", "gpus", "container"], interrupted: false, background: false },
      { line: 10, status: null, keys: null, interrupted: true, background: false },
      { line: 11, status: null, keys: null, interrupted: false, background: true },
      { line: 12, status: null, keys: null, interrupted: false, background: false },
    ]);
    expect(commands[1]!.text).toBe("curl -X POST \\\n  $API/x");
    expect(commands[5]!.text).toBe("echo '# not a comment' \"#nor this\"");
  });

  it("takes a shown object's top-level keys, not its values or nested keys", () => {
    expect(shownKeys('{"payments_enabled": true, "currency": "usd", "items": [{"id"}], "next"}: more')).toEqual(["payments_enabled", "currency", "items", "next"]);
    expect(shownKeys("models, prices")).toBeNull();
    expect(commentStart("a#b # c")).toBe(4);
  });

  it("takes a ts block's file and the command that runs it", () => {
    expect(scriptOf(readBlocks(markdown)[2]!)).toEqual({ file: "chat.ts", run: "ID=$id npx node chat.ts" });
  });
});
