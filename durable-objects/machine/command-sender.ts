// Agent commands leave here, in the order they are made. A command's container spec gets the
// instance's INSTANCE_TOKEN added at send time: the token is derived from the instance id
// (instanceTokenFor), so it is never stored with the spec in the containers table.
import { instanceTokenFor } from "../../core/credentials.ts";
import { errorText, log } from "../../core/log.ts";
import type { ServerMessage } from "../../protocol/index.ts";
import type { AgentSocket } from "./agent-socket.ts";

export type Command = Extract<ServerMessage, { type: "command" }>;

export class CommandSender {
  private readonly agent: AgentSocket;
  private readonly secret: string;
  private readonly machineId: () => number | undefined;
  /** Deriving a token takes a promise: each command waits for the one before, so none overtakes another. */
  private previous: Promise<void> = Promise.resolve();

  constructor(agent: AgentSocket, secret: string, machineId: () => number | undefined) {
    this.agent = agent;
    this.secret = secret;
    this.machineId = machineId;
  }

  /** Sends `command` for a container of account `accountId` (null for one this machine does not know: no spec). */
  send(command: Command, accountId: string | null): void {
    this.previous = this.previous
      .then(async () => {
        const spec = command.spec && accountId !== null
          ? { ...command.spec, env: { ...command.spec.env, INSTANCE_TOKEN: await instanceTokenFor(this.secret, accountId, command.instance_id) } }
          : command.spec;
        this.agent.send({ ...command, spec });
      })
      .catch((error: unknown) => log("error", "agent command not sent", {
        machine_id: this.machineId(), account_id: accountId ?? undefined, instance_id: command.instance_id, command_id: command.command_id, error: errorText(error),
      }));
  }
}
