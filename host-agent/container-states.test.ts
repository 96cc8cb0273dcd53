// The hello's container list: the runtime's actual containers refined by the latest reports.
import { describe, expect, it } from "vitest";
import { ContainerStates } from "./container-states.ts";

const A = "i-aaaaaaaaaaaaaaaa";
const B = "i-bbbbbbbbbbbbbbbb";
const C = "i-cccccccccccccccc";
const D = "i-dddddddddddddddd";

describe("container states for the hello", () => {
  it("lists the runtime's containers as they are when nothing more was reported", () => {
    const states = new ContainerStates();
    states.record({ instance_id: A, state: "stopped", message: "" });
    expect(states.forHello([{ instanceId: A, state: "running" }, { instanceId: B, state: "stopped" }])).toEqual([
      { instance_id: A, state: "running", message: "" },
      { instance_id: B, state: "stopped", message: "" },
    ]);
  });

  it("keeps errors, commands in flight and destructions the runtime cannot show", () => {
    const states = new ContainerStates();
    states.record({ instance_id: A, state: "error", message: "start failed: boom" });
    states.record({ instance_id: B, state: "pulling", message: "" });
    states.record({ instance_id: C, state: "destroyed", message: "" });
    states.record({ instance_id: D, state: "running", message: "" });
    expect(states.forHello([{ instanceId: A, state: "stopped" }])).toEqual([
      { instance_id: A, state: "error", message: "start failed: boom" },
      { instance_id: B, state: "pulling", message: "" },
      { instance_id: C, state: "destroyed", message: "" },
      { instance_id: D, state: "error", message: "container is missing on the host" },
    ]);
  });
});
