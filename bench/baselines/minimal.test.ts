// The minimal server (baseline (a)) as the bench starts it: its own process, the fast routes only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMinimalServer, type MinimalServer } from "./minimal.ts";

let server: MinimalServer;
beforeAll(async () => {
  server = await startMinimalServer();
});
afterAll(() => server.stop());

describe("minimal server", () => {
  it("serves the fast routes in a process of its own, and 404 for anything else", async () => {
    expect(server.pid).not.toBe(process.pid);
    const base = `http://127.0.0.1:${server.port}`;
    expect((await (await fetch(`${base}/fast/bytes?n=1048577`)).arrayBuffer()).byteLength).toBe(1048577);
    expect(await (await fetch(`${base}/fast/sink`, { method: "POST", body: Buffer.alloc(70_000) })).text()).toBe("70000");
    expect(await (await fetch(`${base}/fast/health`)).text()).toBe("ok");
    expect((await fetch(`${base}/health`)).status).toBe(404);
  });

  it("stops", async () => {
    const other = await startMinimalServer();
    await other.stop();
    await expect(fetch(`http://127.0.0.1:${other.port}/fast/health`)).rejects.toThrow();
  });
});
