// The PyTorch template's command, run by the real bash with stand-ins for `pip` and `jupyter` that
// print what they were given: JupyterLab is served at `/` (where the app origin and the path proxy
// forward), locked by the instance token, and accepts the browser's Origin of this instance's app
// origin only.
import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { launchCommand } from "../../workers/api/catalog/launch-commands.ts";
import { testTempDir } from "../support/agent/temp-dir.ts";

function jupyterArgs(instanceId: string): string[] {
  const bin = testTempDir("pytorch-template-");
  writeFileSync(join(bin, "pip"), "#!/bin/sh\nexit 0\n");
  writeFileSync(join(bin, "jupyter"), '#!/bin/sh\nfor arg in "$@"; do printf "%s\\n" "$arg"; done\n');
  for (const tool of ["pip", "jupyter"]) chmodSync(join(bin, tool), 0o755);
  const [shell, flag, script] = launchCommand("pytorch", "", 1) as [string, string, string];
  const out = execFileSync(shell, [flag, script], {
    env: { PATH: `${bin}:/usr/bin:/bin`, PROXY_BASE_PATH: `/v1/instances/${instanceId}/proxy`, INSTANCE_TOKEN: "gpi_token" },
    encoding: "utf8",
  });
  return out.trim().split("\n");
}

describe("the pytorch template's Jupyter", () => {
  it("serves JupyterLab at / with the instance token, and allows its own app origin's Origin only", () => {
    const args = jupyterArgs("i-abcdefghijklmnop");
    expect(args).toEqual([
      "lab", "--ip=0.0.0.0", "--port=8888", "--no-browser", "--allow-root", "--IdentityProvider.token=gpi_token",
      "--ServerApp.allow_origin_pat=^https?://i-abcdefghijklmnop-8888\\.[a-z0-9.-]+(:[0-9]+)?$",
    ]);
    const allowed = new RegExp(args.at(-1)!.split("=")[1]!);
    expect(allowed.test("https://i-abcdefghijklmnop-8888.apps.example.com")).toBe(true);
    expect(allowed.test("http://i-abcdefghijklmnop-8888.localhost:8787")).toBe(true);
    expect(allowed.test("https://i-bbbbbbbbbbbbbbbb-8888.apps.example.com")).toBe(false);
    expect(allowed.test("https://i-abcdefghijklmnop-80.apps.example.com")).toBe(false);
    expect(allowed.test("https://evil.example/i-abcdefghijklmnop-8888.apps")).toBe(false);
    // Matched whole, as current Jupyter Server does: nothing may follow the host and port.
    expect(allowed.test("http://i-abcdefghijklmnop-8888.localhost:8787/x")).toBe(false);
  });
});
