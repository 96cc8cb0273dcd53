// The nvidia-smi fixtures say where they come from (fixtures/SOURCES.md): every file is listed, and
// a file no real host's capture stands behind is marked hand-made, never passed off as recorded.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const folder = new URL("./fixtures/", import.meta.url);
const sources = readFileSync(new URL("SOURCES.md", folder), "utf8");
/** The table's rows: the files each names (first cell) and its last cell, where it was published. */
const rows = sources
  .split("\n")
  .filter((line) => line.startsWith("| `"))
  .map((line) => {
    const cells = line.split(" | ");
    return { files: [...(cells[0] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!), published: (cells.at(-1) ?? "").replace(/\|$/, "").trim(), line };
  });

describe("the nvidia-smi fixtures' sources", () => {
  it("lists every fixture file", () => {
    const listed = rows.flatMap((row) => row.files);
    for (const file of readdirSync(folder).filter((name) => name !== "SOURCES.md")) expect(listed, file).toContain(file);
  });

  it("marks each file without a published capture as hand-made, and names the hand-made ones", () => {
    for (const row of rows.filter((r) => r.published === "" || r.published === "none")) expect(row.line).toContain("hand-made");
    const handMade = rows.filter((row) => row.line.includes("hand-made")).flatMap((row) => row.files);
    expect(handMade.sort()).toEqual(["1x-l4.csv", "4x-a100-40gb.csv", "8x-h100.csv", "8x-rtx4090.csv"]);
    for (const file of handMade) expect(sources).toContain(`\`${file}\``);
    expect(sources).toContain("made-up UUIDs");
  });
});
