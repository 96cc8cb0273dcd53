// Takes a V8 CPU profile of a running isolate through its inspector (Chrome DevTools protocol): the
// Worker in workerd (wrangler's runtime inspector) or a Node process started with --inspect.
import WebSocket from "ws";

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export async function profileWhile<T>(inspectorUrl: string, work: () => Promise<T>, samplingIntervalUs = 200): Promise<{ result: T; profile: CpuProfile }> {
  const socket = new WebSocket(inspectorUrl, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  let nextId = 0;
  const pending = new Map<number, { needsResult: boolean; settle: (result: unknown) => void }>();
  socket.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    // workerd acknowledges some commands by echoing them without a result; Node answers each one.
    if (waiter && (!waiter.needsResult || "result" in message)) waiter.settle(message.result);
  });
  const call = <R>(method: string, params: object = {}, needsResult = false) =>
    new Promise<R>((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => reject(new Error(`inspector did not answer ${method}`)), 10_000);
      pending.set(id, {
        needsResult,
        settle: (result) => {
          clearTimeout(timer);
          pending.delete(id);
          resolve(result as R);
        },
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call("Profiler.enable");
    await call("Profiler.setSamplingInterval", { interval: samplingIntervalUs });
    await call("Profiler.start");
    const result = await work();
    const { profile } = await call<{ profile: CpuProfile }>("Profiler.stop", {}, true);
    return { result, profile };
  } finally {
    socket.terminate();
  }
}
