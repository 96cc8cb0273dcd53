// Ending an SSH connection from the agent's side: each running session is told why on its stderr and
// its process ended; the connection closes a moment after they are all done (at once when none
// runs), or after SESSIONS_END_WITHIN_MS when a process does not end; a session starting after that
// is ended at once. (The whole path, with the real OpenSSH client, is in
// test/e2e/ssh-session-end.test.ts and ssh-agent-restart.test.ts.)
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLIENT_LEAVES_WITHIN_MS, SESSIONS_END_WITHIN_MS, SessionEnder } from "./session-ender.ts";

const REASON = "the instance is being stopped: this session has ended";

function session() {
  const stderr = new PassThrough();
  let said = "";
  stderr.on("data", (chunk: Buffer) => (said += chunk.toString()));
  return { stderr, kills: 0, said: () => said };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("SessionEnder", () => {
  it("tells each running session why, ends its process, and closes the connection a moment after the last channel has closed", () => {
    vi.useFakeTimers();
    let closes = 0;
    const ender = new SessionEnder(() => closes++);
    const [a, b] = [session(), session()];
    const untrackA = ender.track(a.stderr, () => a.kills++);
    const untrackB = ender.track(b.stderr, () => b.kills++);
    expect(ender.reason).toBeNull();

    ender.end(REASON);
    expect(ender.reason).toBe(REASON);
    expect([a.said(), b.said()]).toEqual([`\r\n${REASON}\r\n`, `\r\n${REASON}\r\n`]);
    expect([a.kills, b.kills]).toEqual([1, 1]);
    untrackA();
    expect(closes).toBe(0);
    untrackB();
    // The client may leave by itself first: OpenSSH does once its sessions are over.
    vi.advanceTimersByTime(CLIENT_LEAVES_WITHIN_MS - 1);
    expect(closes).toBe(0);
    vi.advanceTimersByTime(1);
    expect(closes).toBe(1);
    // A second reason changes nothing.
    ender.end("another reason");
    expect(ender.reason).toBe(REASON);
  });

  it("closes the connection at once when no session runs, and the SSH way once connected", () => {
    let socketClosed = 0;
    let disconnected = 0;
    const ender = new SessionEnder(() => socketClosed++);
    ender.connected(() => disconnected++);
    ender.end(REASON);
    expect([socketClosed, disconnected]).toEqual([0, 1]);
  });

  it("ends a session that starts after the end at once, and closes the connection in time when a process ignores its end", () => {
    vi.useFakeTimers();
    let closes = 0;
    const ender = new SessionEnder(() => closes++);
    const stubborn = session();
    ender.track(stubborn.stderr, () => stubborn.kills++);
    ender.end(REASON);
    const late = session();
    ender.track(late.stderr, () => late.kills++);
    expect([late.said(), late.kills]).toEqual([`\r\n${REASON}\r\n`, 1]);
    vi.advanceTimersByTime(SESSIONS_END_WITHIN_MS - 1);
    expect(closes).toBe(0);
    vi.advanceTimersByTime(1);
    expect(closes).toBe(1);
  });
});
