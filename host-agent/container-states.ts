// The latest state the agent reported per instance. Reports made while disconnected are not lost:
// the next hello carries them, merged with what the runtime actually has.
import type { ContainerReport, ContainerState } from "../protocol/messages.ts";
import type { ListedContainer } from "./runtime/runtime.ts";

/** States that say more than the runtime's running/stopped: a command in flight, or a failure. */
const STICKY: ReadonlySet<ContainerState> = new Set(["pulling", "creating", "error"]);

export class ContainerStates {
  readonly #reports = new Map<string, ContainerReport>();

  record(report: ContainerReport): void {
    this.#reports.set(report.instance_id, report);
  }

  /** The hello's container list: the runtime's containers, refined by the latest reports. */
  forHello(listed: readonly ListedContainer[]): ContainerReport[] {
    const reports: ContainerReport[] = [];
    const seen = new Set<string>();
    for (const { instanceId, state } of listed) {
      seen.add(instanceId);
      const reported = this.#reports.get(instanceId);
      reports.push(reported && STICKY.has(reported.state) && state !== "running" ? reported : { instance_id: instanceId, state, message: "" });
    }
    for (const reported of this.#reports.values()) {
      if (seen.has(reported.instance_id)) continue;
      if (reported.state === "running" || reported.state === "stopped") {
        reports.push({ instance_id: reported.instance_id, state: "error", message: "container is missing on the host" });
      } else {
        reports.push(reported);
      }
    }
    return reports;
  }
}
