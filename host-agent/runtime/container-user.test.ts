// Who a container runs as, from its USER and its image's passwd and group files, as the engine reads them.
import { describe, expect, it } from "vitest";
import { resolveContainerUser } from "./container-user.ts";

const PASSWD = ["root:x:0:0:root:/root:/bin/sh", "app:x:1234:2345::/home/app:/bin/sh", "nobody:x:65534:65534:nobody:/:/bin/false", ""].join("\n");
const GROUP = ["root:x:0:", "staff:x:50:", "appgroup:x:2345:", ""].join("\n");

describe("the container's user", () => {
  it.each([
    ["", { uid: 0, gid: 0 }],
    ["app", { uid: 1234, gid: 2345 }],
    ["1234", { uid: 1234, gid: 2345 }],
    ["app:staff", { uid: 1234, gid: 50 }],
    ["app:77", { uid: 1234, gid: 77 }],
    ["4000", { uid: 4000, gid: 0 }],
    ["4000:4001", { uid: 4000, gid: 4001 }],
    ["nobody", { uid: 65534, gid: 65534 }],
  ])("USER %j is %j", (user, expected) => {
    expect(resolveContainerUser(user, PASSWD, GROUP)).toEqual(expected);
  });

  it("a numeric uid:gid needs no files", () => {
    expect(resolveContainerUser("1000:1000", "", "")).toEqual({ uid: 1000, gid: 1000 });
  });

  it("refuses a name the image does not have, naming it", () => {
    expect(() => resolveContainerUser("ghost", PASSWD, GROUP)).toThrow("the image's user ghost is not in its /etc/passwd");
    expect(() => resolveContainerUser("app:ghosts", PASSWD, GROUP)).toThrow("the image's group ghosts is not in its /etc/group");
  });
});
