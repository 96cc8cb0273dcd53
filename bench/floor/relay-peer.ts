// Baseline (f)'s peer (relay-object.ts): answers each message at once with one binary frame, the
// stream id and a small JSON body, as a host's agent answers a small request in one response frame.
// Prints "open" once connected. Usage: node relay-peer.ts ws://…/peer
import WebSocket from "ws";

const BODY = Buffer.from('{"status":"ok"}');

const socket = new WebSocket(process.argv[2]!, { perMessageDeflate: false });
socket.on("open", () => console.log("open"));
socket.on("message", (data: Buffer) => {
  const { stream } = JSON.parse(data.toString()) as { stream: number };
  const frame = Buffer.allocUnsafe(4 + BODY.byteLength);
  frame.writeUInt32BE(stream, 0);
  BODY.copy(frame, 4);
  socket.send(frame);
});
socket.on("close", () => process.exit(0));
socket.on("error", (error) => {
  console.error(error.message);
  process.exit(1);
});
