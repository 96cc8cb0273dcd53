// WebSockets through each route to the container's `/ws` echo (with the `ws` package): round-trip
// time of one small message at a time, and echoed messages per second with 64 in flight.
import WebSocket from "ws";
import type { Section } from "../results-model.ts";
import { wsUrl, type Route } from "../routes.ts";
import { perSecond, summarize } from "../stats.ts";
import { CONTAINER_BASELINES, onEachRoute, routeFigures, type SuiteContext } from "./suite-context.ts";

interface WsResult {
  rttP50: number;
  rttP99: number;
  messagesPerS: number;
}

const IN_FLIGHT = 64;
const WARM_UP_MESSAGES = 50;
const MESSAGE = "x".repeat(32);

export async function websocketSuite(ctx: SuiteContext): Promise<Section> {
  const { wsRoundTrips, wsBurstMessages } = ctx.config;
  const notes = [
    `round trip: ${wsRoundTrips} sequential 32-byte text messages after ${WARM_UP_MESSAGES} warm-up; messages/s: ${wsBurstMessages} 32-byte messages with ${IN_FLIGHT} in flight, counted when echoed`,
  ];
  ctx.log("websocket: round trips and message rate");
  const results = await onEachRoute(ctx, notes, "WebSocket", (route) => wsRun(route, wsRoundTrips, wsBurstMessages), { containerOnly: true });
  const figures = routeFigures(results, [
    { id: "websocket.rtt.p50", label: "round trip p50", unit: "ms", better: "lower", pick: (r) => r.rttP50, apps: true },
    { id: "websocket.rtt.p99", label: "round trip p99", unit: "ms", better: "lower", pick: (r) => r.rttP99 },
    { id: "websocket.messages_per_s", label: `messages/s (${IN_FLIGHT} in flight)`, unit: "msg/s", better: "higher", pick: (r) => r.messagesPerS, apps: true },
  ]);
  return { id: "websocket", title: "WebSocket", baselineKeys: CONTAINER_BASELINES, figures, notes };
}

async function wsRun(route: Route, roundTrips: number, burst: number): Promise<WsResult> {
  const socket = new WebSocket(wsUrl(route, "/ws"), { headers: route.headers, perMessageDeflate: false });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
      socket.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    });
    const echoes: (() => void)[] = [];
    socket.on("message", () => echoes.shift()?.());
    const roundTrip = () => new Promise<void>((resolve) => {
      echoes.push(resolve);
      socket.send(MESSAGE);
    });
    for (let i = 0; i < WARM_UP_MESSAGES; i++) await roundTrip();
    const samples: number[] = [];
    for (let i = 0; i < roundTrips; i++) {
      const started = performance.now();
      await roundTrip();
      samples.push(performance.now() - started);
    }
    const started = performance.now();
    let sent = 0;
    const lane = async () => {
      while (sent < burst) {
        sent++;
        await roundTrip();
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const rtt = summarize(samples);
    return { rttP50: rtt.p50, rttP99: rtt.p99, messagesPerS: perSecond(burst, performance.now() - started) };
  } finally {
    socket.terminate();
  }
}
