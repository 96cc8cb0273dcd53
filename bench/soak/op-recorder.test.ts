import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { OpFailure, OpRecorder } from "./op-recorder.ts";

/** A local port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("OpRecorder", () => {
  it("records a success with its machine and times, and says true", async () => {
    const recorder = new OpRecorder();
    expect(await recorder.run("api.me", null, async () => undefined)).toBe(true);
    const [record] = recorder.records;
    expect(record).toEqual({ op: "api.me", machine: null, startMs: expect.any(Number), endMs: expect.any(Number), error: null });
    expect(record!.endMs).toBeGreaterThanOrEqual(record!.startMs);
  });

  it("records an OpFailure by its message, with its detail, and says false", async () => {
    const recorder = new OpRecorder();
    const ok = await recorder.run("api.launch", "dev-1", async () => {
      throw new OpFailure("HTTP 409 no_capacity", "no free rtx4090");
    });
    expect(ok).toBe(false);
    expect(recorder.records).toEqual([
      { op: "api.launch", machine: "dev-1", startMs: expect.any(Number), endMs: expect.any(Number), error: "HTTP 409 no_capacity", detail: "no free rtx4090" },
    ]);
  });

  it("names an aborted operation a timeout", async () => {
    const recorder = new OpRecorder();
    const port = await closedPort();
    await recorder.run("proxy.sse", "dev-1", async () => void (await fetch(`http://127.0.0.1:${port}/sse`, { signal: AbortSignal.abort() })));
    expect(recorder.records[0]!.error).toBe("timeout");
    expect(recorder.records[0]).not.toHaveProperty("detail");
  });

  it("names a refused connection by its code", async () => {
    const recorder = new OpRecorder();
    const port = await closedPort();
    await recorder.run("api.me", null, async (signal) => void (await fetch(`http://127.0.0.1:${port}/v1/me`, { signal })));
    expect(recorder.records[0]!.error).toBe("network: ECONNREFUSED");
  });
});
