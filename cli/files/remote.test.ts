// `gpu cp`'s remote sides: an instance's path, a volume's by name or id, and the malformed ones,
// each refused as a usage error that says what is wrong.
import { describe, expect, it } from "vitest";
import { CliError, USAGE_EXIT } from "../errors.ts";
import { filesUrl, pathUrl, remoteOf } from "./remote.ts";

const ID = "i-abcdefghijklmnop";

describe("remoteOf", () => {
  it("reads an instance's path and a volume's, by name or id; anything else is local", () => {
    expect(remoteOf(`${ID}:/data/x`)).toEqual({ kind: "instance", id: ID, path: "/data/x", text: `${ID}:/data/x` });
    expect(remoteOf("vol:datasets:/imagenet/train")).toEqual({ kind: "volume", id: "datasets", path: "/imagenet/train", text: "vol:datasets:/imagenet/train" });
    expect(remoteOf("vol:vol_abcdefghijklmnop:/")).toMatchObject({ kind: "volume", id: "vol_abcdefghijklmnop", path: "/" });
    expect(remoteOf("vol:a:/with:colon")).toMatchObject({ id: "a", path: "/with:colon" });
    for (const local of ["./vol:x", "dataset", "/tmp/i-abcdefghijklmnop:/x", "volume:x:/y", "i-short:/data"]) expect(remoteOf(local), local).toBeNull();
  });

  it.each([
    [`${ID}:data`, `${ID}:data: the instance's path must be absolute (e.g. ${ID}:/data)`],
    ["vol:datasets:imagenet", "vol:datasets:imagenet: the volume's path must be absolute (e.g. vol:datasets:/data)"],
    ["vol:datasets", "vol:datasets: the volume's path comes after its name, e.g. vol:datasets:/ for the whole volume"],
    ["vol::/x", "vol::/x: after vol: comes a volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id (vol_…), e.g. vol:datasets:/imagenet"],
    ["vol:Data:/x", "vol:Data:/x: after vol: comes a volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id (vol_…), e.g. vol:datasets:/imagenet"],
    ["vol:9lives:/x", "vol:9lives:/x: after vol: comes a volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id (vol_…), e.g. vol:datasets:/imagenet"],
    [`vol:${"a".repeat(64)}:/x`, `vol:${"a".repeat(64)}:/x: after vol: comes a volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id (vol_…), e.g. vol:datasets:/imagenet`],
  ])("refuses %s as a usage error", (argument, message) => {
    expect(() => remoteOf(argument)).toThrow(new CliError(message, USAGE_EXIT));
  });

  it("reaches each through its own files route, the path in the query", () => {
    expect(filesUrl("http://api", remoteOf(`${ID}:/data`)!)).toBe(`http://api/v1/instances/${ID}/files`);
    expect(pathUrl("http://api", remoteOf("vol:datasets:/a b")!)).toBe("http://api/v1/volumes/datasets/files?path=%2Fa+b");
    expect(pathUrl("http://api", remoteOf("vol:datasets:/a b")!, "/")).toBe("http://api/v1/volumes/datasets/files?path=%2F");
  });
});
