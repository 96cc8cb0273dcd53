// The agent's WebSocket masking: the same bytes as masking byte by byte, for any length, offset and
// alignment; and ws, loaded after it in a fresh process as the agent's entries load it, masks with it:
// a real ws server reads a 1 MiB message from a real ws client intact, through these functions.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskInto, unmaskInPlace } from "./ws-mask.ts";

const byteByByte = (source: Uint8Array, mask: Uint8Array, length: number) => Uint8Array.from(source.subarray(0, length), (b, i) => b ^ mask[i & 3]!);

describe("the agent's WebSocket masking", () => {
  it("masks into another buffer at any offset, and in place, as byte-by-byte masking does; unmasking undoes it", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.uint8Array({ minLength: 4, maxLength: 4 }),
        fc.nat(7), fc.nat(7), fc.nat(20),
        (bytes, mask, sourceStart, offset, shorter) => {
          // Views at every alignment of their buffers, as pooled Buffers and ws's frames are.
          const source = new Uint8Array(bytes.byteLength + sourceStart);
          source.set(bytes, sourceStart);
          const view = source.subarray(sourceStart);
          const length = Math.max(0, view.byteLength - shorter);
          const output = new Uint8Array(length + offset + 3).subarray(1);
          maskInto(view, mask, output, offset, length);
          expect(output.subarray(offset, offset + length)).toEqual(byteByByte(view, mask, length));
          const inPlace = view.slice();
          maskInto(inPlace, mask, inPlace, 0, inPlace.byteLength);
          expect(inPlace).toEqual(byteByByte(view, mask, view.byteLength));
          unmaskInPlace(inPlace, mask);
          expect(inPlace).toEqual(view);
        },
      ),
      { seed: 43, numRuns: 2000 },
    );
  });

  it("is what ws masks with when loaded after it: a 1 MiB message from a ws client reaches a ws server intact", () => {
    const script = `
      await import(${JSON.stringify(resolve(import.meta.dirname, "ws-mask.ts"))});
      const http = (await import("node:http")).default;
      let masked = 0;
      const ours = http.websocketMask;
      http.websocketMask = (...args) => { masked += args[4]; return ours(...args); };
      const { WebSocket, WebSocketServer } = await import("ws");
      const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
      await new Promise((r) => server.on("listening", r));
      const sent = Buffer.alloc(1 << 20);
      for (let i = 0; i < sent.length; i++) sent[i] = (i * 7 + (i >> 9)) & 255;
      const received = new Promise((r) => server.on("connection", (ws) => ws.on("message", (data) => r(data))));
      const client = new WebSocket("ws://127.0.0.1:" + server.address().port);
      await new Promise((r) => client.on("open", r));
      client.send(sent);
      const data = await received;
      client.terminate();
      server.close();
      console.log(JSON.stringify({ intact: Buffer.compare(data, sent) === 0, masked }));
    `;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: resolve(import.meta.dirname, ".."), encoding: "utf8" });
    expect(JSON.parse(output.trim().split("\n").at(-1)!)).toEqual({ intact: true, masked: 1 << 20 });
  });
});
