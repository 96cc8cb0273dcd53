// `gpu launch --volume`: each form the help names becomes one of the launch's `volumes`, in order;
// a malformed one is refused by the parser (exit 2) naming the option, the value and the form.
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { IoStreams } from "./iostreams.ts";
import { runCli } from "./main.ts";
import { addVolumeMount } from "./volume-mount.ts";

const FORM = "<name or id>[:/path][:ro], e.g. datasets:/data:ro";

describe("addVolumeMount", () => {
  it("reads a name or an id, then an optional absolute path, then an optional :ro; each value adds one", () => {
    expect(addVolumeMount("work")).toEqual([{ volume_id: "work" }]);
    expect(addVolumeMount("vol_abcdefghijklmnop:/data")).toEqual([{ volume_id: "vol_abcdefghijklmnop", path: "/data" }]);
    expect(addVolumeMount("datasets:ro")).toEqual([{ volume_id: "datasets", read_only: true }]);
    expect(addVolumeMount("datasets:/mnt/sets:ro", [{ volume_id: "work" }])).toEqual([{ volume_id: "work" }, { volume_id: "datasets", path: "/mnt/sets", read_only: true }]);
  });

  it.each([
    ["", `must start with a volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id (vol_…): ${FORM}`],
    ["Work", `must start with a volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id (vol_…): ${FORM}`],
    [":/data", `must start with a volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id (vol_…): ${FORM}`],
    ["work:data", `the path after the volume must be absolute (or :ro alone): ${FORM}`],
    ["work:rw", `the path after the volume must be absolute (or :ro alone): ${FORM}`],
    ["work:", `the path after the volume must be absolute (or :ro alone): ${FORM}`],
    ["work:/data:rw", `takes one path and then only :ro: ${FORM}`],
    ["work:/a:/b", `takes one path and then only :ro: ${FORM}`],
    ["work:ro:/data", `takes one path and then only :ro: ${FORM}`],
  ])("refuses %j: %s", (value, message) => {
    expect(() => addVolumeMount(value)).toThrow(message);
  });

  it("gpu launch refuses a malformed --volume as a usage error naming the value, before anything is asked of the API", async () => {
    let stderr = "";
    const sink = (collect: (text: string) => void) => new Writable({ write: (chunk: Buffer, _encoding, done) => (collect(chunk.toString()), done()) });
    const io: IoStreams = {
      stdin: Readable.from([]), stdout: sink(() => undefined), stderr: sink((text) => (stderr += text)),
      isStdoutTty: false, isStderrTty: false, isStdinTty: false, out: () => undefined, err: (line) => void (stderr += `${line}\n`),
    };
    const code = await runCli(["launch", "--gpu-model", "rtx4090", "--template", "pytorch", "--volume", "work:data"], io, {});
    expect(code).toBe(2);
    expect(stderr).toContain(`error: option '--volume <name[:/path][:ro]>' argument 'work:data' is invalid. the path after the volume must be absolute (or :ro alone): ${FORM}`);
  });
});
