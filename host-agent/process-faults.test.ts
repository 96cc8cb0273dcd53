// An error nothing caught, in a process of its own as the agent is: with the agent's handlers it is
// logged (message, code, where it came from) and the process goes on; without them Node ends it, as
// one tenant's SSH forward once ended the agent for every tenant on its host.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { NODE_BINARY } from "../test/support/agent/node-binary.ts";

const MODULES = { faults: new URL("./process-faults.ts", import.meta.url).href, log: new URL("./log.ts", import.meta.url).href };

/** Runs a process that throws in a callback and leaves a promise rejected, then says it is still there; its exit code and output. */
async function faultingProcess(handled: boolean): Promise<{ code: number; lines: string[] }> {
  const script = `
    import { logUncaughtFaults } from ${JSON.stringify(MODULES.faults)};
    import { createLogger } from ${JSON.stringify(MODULES.log)};
    if (${handled}) logUncaughtFaults(createLogger());
    void Promise.reject(new Error("a stream's promise failed"));
    setTimeout(() => { throw Object.assign(new RangeError("port should be < 65536"), { code: "ERR_SOCKET_BAD_PORT" }); }, 10);
    setTimeout(() => console.log(JSON.stringify({ msg: "still running" })), 300);
  `;
  const run = promisify(execFile)(NODE_BINARY, ["--input-type=module", "-e", script]);
  const { stdout, code } = await run.then(
    ({ stdout }) => ({ stdout, code: 0 }),
    (error: { stdout: string; code: number }) => ({ stdout: error.stdout, code: error.code }),
  );
  return { code, lines: stdout.split("\n").filter(Boolean) };
}

describe("logUncaughtFaults", () => {
  it("logs an uncaught exception and an unhandled rejection, each with what is known of it, and the process goes on", async () => {
    const { code, lines } = await faultingProcess(true);
    expect(code).toBe(0);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(expect.objectContaining({ level: "error", msg: "unhandled rejection", error: "a stream's promise failed" }));
    expect(logged).toContainEqual(
      expect.objectContaining({ level: "error", msg: "uncaught exception", origin: "uncaughtException", error: "port should be < 65536", code: "ERR_SOCKET_BAD_PORT", stack: expect.stringContaining("RangeError") }),
    );
    expect(logged.at(-1)).toEqual({ msg: "still running" });
  });

  it("is what keeps the process: without it, the same faults end it", async () => {
    const { code, lines } = await faultingProcess(false);
    expect(code).not.toBe(0);
    expect(lines).toEqual([]);
  });
});
