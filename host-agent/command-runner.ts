// Runs the MachineDO's commands against the runtime, one at a time per instance, reporting every
// state change and acknowledging each command; a failure becomes an `error` state, never a crash,
// whose message is one line (status-line.ts). An instance's volumes are restored before its container
// starts, and saved once its processes have ended, before a stop or destroy completes: what a
// program writes as it is told to stop is in the saved version (instance-volumes.ts).
// While the host is degraded (host-health.ts) it refuses creates and starts, saying why.
import type { AgentMessage, ContainerReport, ServerMessage } from "../protocol/messages.ts";
import type { VolumeHooks } from "./instance-volumes.ts";
import { errorMessage, type Logger } from "./log.ts";
import type { ContainerRuntime } from "./runtime/runtime.ts";
import { statusLine } from "./status-line.ts";

export type CommandMessage = Extract<ServerMessage, { type: "command" }>;
type Send = (message: AgentMessage) => void;

export class CommandRunner {
  readonly #runtime: ContainerRuntime;
  readonly #report: (report: ContainerReport) => void;
  readonly #send: Send;
  readonly #log: Logger;
  readonly #degraded: () => string;
  readonly #volumes: VolumeHooks | null;
  readonly #queues = new Map<string, Promise<void>>();

  /** `degraded`: why the host takes no new instances now, "" when it does; `volumes`: none, a runtime without them. */
  constructor(runtime: ContainerRuntime, report: (report: ContainerReport) => void, send: Send, log: Logger, degraded: () => string = () => "", volumes: VolumeHooks | null = null) {
    this.#runtime = runtime;
    this.#report = report;
    this.#send = send;
    this.#log = log;
    this.#degraded = degraded;
    this.#volumes = volumes;
  }

  /** Queues the command behind earlier ones for the same instance; resolves once it has run. */
  run(command: CommandMessage): Promise<void> {
    return this.#inTurn(command.instance_id, () => this.#execute(command));
  }

  /** A save of the instance's volumes the agent decides on (the periodic one), in turn with its commands, unacknowledged. */
  saveVolumes(instanceId: string): Promise<void> {
    return this.#inTurn(instanceId, async () => this.#volumes?.save(instanceId));
  }

  #inTurn(instanceId: string, work: () => Promise<void>): Promise<void> {
    const previous = this.#queues.get(instanceId) ?? Promise.resolve();
    const done = previous.then(work);
    this.#queues.set(instanceId, done);
    void done.then(() => {
      if (this.#queues.get(instanceId) === done) this.#queues.delete(instanceId);
    });
    return done;
  }

  async #execute(command: CommandMessage): Promise<void> {
    const { command_id: commandId, op, instance_id: instanceId } = command;
    this.#log.info("command", { command_id: commandId, op, instance_id: instanceId });
    try {
      await this.#apply(command);
      this.#send({ type: "ack", command_id: commandId, ok: true, error: "" });
    } catch (error) {
      const message = `${op} failed: ${errorMessage(error)}`;
      this.#log.error("command failed", { command_id: commandId, op, instance_id: instanceId, error: message });
      const line = statusLine(message);
      this.#report({ instance_id: instanceId, state: "error", message: line });
      this.#send({ type: "ack", command_id: commandId, ok: false, error: line });
    }
  }

  async #apply({ op, instance_id: instanceId, spec }: CommandMessage): Promise<void> {
    const state = (state: ContainerReport["state"], message = "") => this.#report({ instance_id: instanceId, state, message });
    const degraded = op === "create" || op === "start" ? this.#degraded() : "";
    if (degraded) throw new Error(`this host takes no new instances now: ${degraded}`);
    switch (op) {
      case "create": {
        if (!spec || spec.instance_id !== instanceId) throw new Error("create needs the instance's spec");
        state("pulling");
        const { notice } = await this.#runtime.create(spec, (percent) => {
          this.#send({ type: "pull_progress", instance_id: instanceId, percent });
        });
        await this.#volumes?.restore(instanceId, spec.volumes ?? null);
        // The notice (e.g. "disk_gb is not enforced on this host") becomes part of the instance's event.
        state("creating", notice);
        await this.#runtime.start(instanceId);
        return state("running");
      }
      case "start":
        await this.#volumes?.restore(instanceId, spec?.volumes ?? null);
        await this.#runtime.start(instanceId);
        return state("running");
      case "stop":
        await this.#runtime.stop(instanceId);
        await this.#volumes?.save(instanceId, spec?.volumes ?? null);
        return state("stopped");
      case "destroy":
        if (await this.#volumes?.hasWritable(instanceId)) {
          // The final save comes from a stopped container; one the engine cannot stop is saved as it is.
          await this.#runtime.stop(instanceId).catch((error: unknown) => this.#log.warn("stop before the final save failed", { instance_id: instanceId, error: errorMessage(error) }));
          await this.#volumes!.save(instanceId, spec?.volumes ?? null);
        }
        await this.#runtime.destroy(instanceId);
        return state("destroyed");
      case "save":
        return this.#volumes?.save(instanceId, spec?.volumes ?? null);
    }
  }
}
