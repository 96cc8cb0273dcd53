// The bounds on what an SSH client asks for, as numbers and strings: end to end against the docker
// runtime with a hostile client in hostile-client.test.ts.
import { describe, expect, it } from "vitest";
import { TERMINAL_MAX_SIZE } from "../../protocol/messages.ts";
import { changedTerminal, envAllowed, isPort, MAX_ENV_VALUE_LENGTH, MAX_ENV_VARIABLES, requestedTerminal } from "./client-values.ts";

describe("SSH client values", () => {
  it("takes ports 1–65535 only", () => {
    expect([1, 22, 65_535].map(isPort)).toEqual([true, true, true]);
    expect([0, -1, 65_536, 70_000, 2 ** 32 - 1, 1.5, Number.NaN].map(isPort)).toEqual(Array(7).fill(false));
  });

  it("reads a terminal of 0 as the default and refuses one past the largest a terminal draws", () => {
    expect(requestedTerminal(0, 0)).toEqual({ cols: 80, rows: 24 });
    expect(requestedTerminal(TERMINAL_MAX_SIZE, 1)).toEqual({ cols: TERMINAL_MAX_SIZE, rows: 1 });
    expect(requestedTerminal(TERMINAL_MAX_SIZE + 1, 24)).toBeNull();
    expect(requestedTerminal(80, 2 ** 32 - 1)).toBeNull();
    expect(changedTerminal(120, 40)).toEqual({ cols: 120, rows: 40 });
    expect(changedTerminal(0, 40)).toBeNull();
    expect(changedTerminal(2 ** 32 - 1, 40)).toBeNull();
  });

  it("lets a session set TERM, LANG and LC_* to short printable values, up to so many", () => {
    expect(envAllowed("LANG", "C.UTF-8", 0)).toBe(true);
    expect(envAllowed("LC_ALL", "x".repeat(MAX_ENV_VALUE_LENGTH), 0)).toBe(true);
    expect(envAllowed("LC_ALL", "x".repeat(MAX_ENV_VALUE_LENGTH + 1), 0)).toBe(false);
    expect(envAllowed("TERM", "xterm\nLD_PRELOAD=/x", 0)).toBe(false);
    expect(envAllowed("LD_PRELOAD", "/tmp/x.so", 0)).toBe(false);
    expect(envAllowed("LC_1", "y", 0)).toBe(false);
    expect(envAllowed("LANG", "C.UTF-8", MAX_ENV_VARIABLES - 1)).toBe(true);
    expect(envAllowed("LANG", "C.UTF-8", MAX_ENV_VARIABLES)).toBe(false);
  });
});
