// Takes V8 CPU profiles of a running isolate through its inspector (Chrome DevTools protocol): the
// Worker in workerd (wrangler's runtime inspector) or a Node process started with --inspect; and reads
// the source of the scripts a profile's frames are in.
import WebSocket from "ws";

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; scriptId?: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export interface InspectorSession {
  /** `needsResult`: wait for the answer that carries a result, not workerd's bare echo of the command. */
  call<R>(method: string, params?: object, needsResult?: boolean): Promise<R>;
  close(): void;
}

const ANSWER_MS = 10_000;
/** How long a fresh session's first command may go unanswered before the session is replaced. */
const FIRST_ANSWER_MS = 3_000;
const SESSION_ATTEMPTS = 3;
export const DEFAULT_SAMPLING_US = 200;

/**
 * A session whose profiler answers. workerd's inspector now and then ignores a fresh session's first
 * commands; such a session is closed and another opened, up to three.
 */
export async function openInspector(url: string): Promise<InspectorSession> {
  for (let attempt = 1; ; attempt++) {
    const session = await connect(url);
    try {
      await session.call("Profiler.enable", {}, false, attempt < SESSION_ATTEMPTS ? FIRST_ANSWER_MS : ANSWER_MS);
      return session;
    } catch (error) {
      session.close();
      if (attempt >= SESSION_ATTEMPTS) throw error;
    }
  }
}

export async function profileWhile<T>(inspectorUrl: string, work: () => Promise<T>, samplingIntervalUs = DEFAULT_SAMPLING_US): Promise<{ result: T; profile: CpuProfile }> {
  const session = await openInspector(inspectorUrl);
  try {
    return await profileOn(session, work, samplingIntervalUs);
  } finally {
    session.close();
  }
}

/** A profile of the isolate while `work` runs, on a session `openInspector` opened. */
export async function profileOn<T>(session: InspectorSession, work: () => Promise<T>, samplingIntervalUs = DEFAULT_SAMPLING_US): Promise<{ result: T; profile: CpuProfile }> {
  await session.call("Profiler.setSamplingInterval", { interval: samplingIntervalUs });
  await session.call("Profiler.start");
  const result = await work();
  const { profile } = await session.call<{ profile: CpuProfile }>("Profiler.stop", {}, true);
  return { result, profile };
}

/** The source text of each script, by the ids a profile's call frames carry. */
export async function scriptSources(session: InspectorSession, scriptIds: Iterable<string>): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  await session.call("Debugger.enable", {}, true);
  try {
    for (const scriptId of scriptIds) {
      const { scriptSource } = await session.call<{ scriptSource: string }>("Debugger.getScriptSource", { scriptId }, true);
      sources.set(scriptId, scriptSource);
    }
  } finally {
    await session.call("Debugger.disable");
  }
  return sources;
}

async function connect(url: string): Promise<InspectorSession & { call<R>(method: string, params?: object, needsResult?: boolean, answerMs?: number): Promise<R> }> {
  const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  let nextId = 0;
  const pending = new Map<number, { needsResult: boolean; timer: NodeJS.Timeout; settle: (message: { result?: unknown; error?: { message: string } }) => void }>();
  socket.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    // workerd acknowledges some commands by echoing them without a result; Node answers each one.
    if (waiter && (!waiter.needsResult || "result" in message || "error" in message)) waiter.settle(message);
  });
  const call = <R>(method: string, params: object = {}, needsResult = false, answerMs = ANSWER_MS) =>
    new Promise<R>((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`inspector did not answer ${method}`));
      }, answerMs);
      pending.set(id, {
        needsResult,
        timer,
        settle: (message) => {
          clearTimeout(timer);
          pending.delete(id);
          if (message.error) reject(new Error(`inspector refused ${method}: ${message.error.message}`));
          else resolve(message.result as R);
        },
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  const close = () => {
    for (const { timer } of pending.values()) clearTimeout(timer);
    pending.clear();
    socket.terminate();
  };
  return { call, close };
}
