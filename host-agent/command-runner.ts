// Runs the MachineDO's commands against the runtime, one at a time per instance, reporting every
// state change and acknowledging each command; a failure becomes an `error` state, never a crash,
// whose message is one line (status-line.ts).
// While the host is degraded (host-health.ts) it refuses creates and starts, saying why.
import type { AgentMessage, ContainerReport, ServerMessage } from "../protocol/messages.ts";
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
  readonly #queues = new Map<string, Promise<void>>();

  /** `degraded`: why the host takes no new instances now, "" when it does. */
  constructor(runtime: ContainerRuntime, report: (report: ContainerReport) => void, send: Send, log: Logger, degraded: () => string = () => "") {
    this.#runtime = runtime;
    this.#report = report;
    this.#send = send;
    this.#log = log;
    this.#degraded = degraded;
  }

  /** Queues the command behind earlier ones for the same instance; resolves once it has run. */
  run(command: CommandMessage): Promise<void> {
    const previous = this.#queues.get(command.instance_id) ?? Promise.resolve();
    const done = previous.then(() => this.#execute(command));
    this.#queues.set(command.instance_id, done);
    void done.then(() => {
      if (this.#queues.get(command.instance_id) === done) this.#queues.delete(command.instance_id);
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
        // The notice (e.g. "disk_gb is not enforced on this host") becomes part of the instance's event.
        state("creating", notice);
        await this.#runtime.start(instanceId);
        return state("running");
      }
      case "start":
        await this.#runtime.start(instanceId);
        return state("running");
      case "stop":
        await this.#runtime.stop(instanceId);
        return state("stopped");
      case "destroy":
        await this.#runtime.destroy(instanceId);
        return state("destroyed");
    }
  }
}
