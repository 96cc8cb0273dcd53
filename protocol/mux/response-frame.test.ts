// Whole-response frames: round trips (a header value outside ASCII included, through asciiJson), a
// frame read at an offset, and every malformed frame refused with the stream it names still readable.
import { describe, expect, it } from "vitest";
import { asciiJson, isPrintableAscii } from "../ascii-json.ts";
import { decodeDataFrame } from "./frames.ts";
import { decodeResponseFrame, encodeResponseFrame, RESPONSE_FRAME_KIND, responseFrameStream } from "./response-frame.ts";

const BODY = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
const HEADERS: [string, string][] = [["content-type", "application/json"], ["x-name", "caf\u00e9 \u2603"], ["set-cookie", "a=1"], ["set-cookie", "b=2"]];

/** A frame with `edit` applied to its bytes. */
function edited(edit: (bytes: Uint8Array, view: DataView) => void): Uint8Array {
  const frame = encodeResponseFrame(7, 200, asciiJson(HEADERS), BODY);
  edit(frame, new DataView(frame.buffer));
  return frame;
}

describe("response frames", () => {
  it("round-trip the status, the headers (escaped to ASCII and back) and the exact bytes", () => {
    const head = asciiJson(HEADERS);
    expect(isPrintableAscii(head)).toBe(true);
    const frame = encodeResponseFrame(0xdeadbeef, 404, head, BODY);
    expect(frame[0]).toBe(RESPONSE_FRAME_KIND);
    const decoded = decodeResponseFrame(frame);
    expect(decoded).toEqual({ stream: 0xdeadbeef, status: 404, head, body: BODY });
    expect(JSON.parse((decoded as { head: string }).head)).toEqual(HEADERS);
  });

  it("round-trip an empty head list and an empty body, and read a frame at an offset in a larger buffer", () => {
    const backing = new Uint8Array(100);
    const frame = encodeResponseFrame(3, 204, "[]", new Uint8Array());
    backing.set(frame, 20);
    expect(decodeResponseFrame(backing.subarray(20, 20 + frame.byteLength))).toEqual({ stream: 3, status: 204, head: "[]", body: new Uint8Array() });
  });

  it("is a kind no data frame has: an end that only reads data frames refuses it", () => {
    expect(decodeDataFrame(encodeResponseFrame(1, 200, "[]", BODY))).toEqual({ error: `data frame kind ${RESPONSE_FRAME_KIND} is unknown` });
  });

  it.each([
    ["shorter than its header", () => new Uint8Array([RESPONSE_FRAME_KIND, 0, 0, 0, 7, 0]), "shorter than its header"],
    ["for stream 0", () => edited((_, view) => view.setUint32(1, 0)), "stream 0"],
    ["with a status under 100", () => edited((_, view) => view.setUint16(5, 99)), "status 99"],
    ["with a status over 599", () => edited((_, view) => view.setUint16(5, 600)), "status 600"],
    ["with a head longer than the frame", () => edited((bytes, view) => view.setUint32(7, bytes.byteLength)), "overruns the frame"],
    ["with a head outside printable ASCII", () => edited((bytes) => (bytes[12] = 0xc3)), "not printable ASCII"],
    ["with a line break in its head", () => edited((bytes) => (bytes[12] = 0x0a)), "not printable ASCII"],
  ])("refuses a frame %s", (_, frame, error) => {
    expect(decodeResponseFrame(frame())).toEqual({ error: expect.stringContaining(error) });
  });

  it("names its stream even when the rest is malformed, so that stream alone can fail", () => {
    expect(responseFrameStream(edited((_, view) => view.setUint16(5, 1)))).toBe(7);
    expect(responseFrameStream(new Uint8Array([RESPONSE_FRAME_KIND, 0, 0]))).toBe(0);
  });
});
