// Level-triggered reconciliation: from what a container should be and what the agent last said it
// is, the one command that moves it closer. Run on every agent hello and every state change, so a
// command lost with a connection is simply derived again.
import type { ContainerState } from "../../protocol/messages.ts";

export type Desired = "running" | "stopped" | "destroyed";
/** What the agent last reported, or `absent` when it has no such container. */
export type Actual = ContainerState | "absent";
export type Op = "create" | "start" | "stop" | "destroy";

export function commandFor(desired: Desired, actual: Actual): Op | null {
  switch (desired) {
    case "running":
      // A container in `error` stays there until the user starts it again: no retry loop.
      if (actual === "absent" || actual === "destroyed") return "create";
      return actual === "stopped" ? "start" : null;
    case "stopped":
      return actual === "running" || actual === "pulling" || actual === "creating" ? "stop" : null;
    case "destroyed":
      return actual === "destroyed" ? null : "destroy";
  }
}

/** The command for an explicit start by the user, which does retry a failed container. */
export function commandForStart(actual: Actual): Op | null {
  return actual === "error" ? "create" : commandFor("running", actual);
}
