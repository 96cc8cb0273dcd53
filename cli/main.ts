// The `gpu` program: its commands (one file each under commands/), parsing by commander, and the
// one place where a failure becomes a message on stderr and a non-zero exit status.
import { Command, CommanderError } from "@commander-js/extra-typings";
import { accountsCommand } from "./commands/accounts.ts";
import { auditCommand } from "./commands/audit.ts";
import { balanceCommand } from "./commands/balance.ts";
import { catalogCommand } from "./commands/catalog.ts";
import { cpCommand } from "./commands/cp.ts";
import { eventsCommand } from "./commands/events.ts";
import { forwardCommand } from "./commands/forward.ts";
import { gpusCommand } from "./commands/gpus.ts";
import { startCommand, stopCommand } from "./commands/instance-action.ts";
import { keysCommand } from "./commands/keys.ts";
import { webhooksCommand } from "./commands/webhooks.ts";
import { launchCommand } from "./commands/launch.ts";
import { ledgerCommand } from "./commands/ledger.ts";
import { topupCommand } from "./commands/topup.ts";
import { loginCommand } from "./commands/login.ts";
import { logsCommand } from "./commands/logs.ts";
import { membersCommand } from "./commands/members.ts";
import { lsCommand } from "./commands/ls.ts";
import { metricsCommand } from "./commands/metrics.ts";
import { openCommand } from "./commands/open.ts";
import { idleStopCommand } from "./commands/idle-stop.ts";
import { renameCommand } from "./commands/rename.ts";
import { rmCommand } from "./commands/rm.ts";
import { showCommand } from "./commands/show.ts";
import { sshKeysCommand } from "./commands/ssh-keys.ts";
import { sshCommand, sshConfigCommand } from "./commands/ssh.ts";
import { sshProxyCommand } from "./commands/ssh-proxy.ts";
import { topCommand } from "./commands/top.ts";
import { usageCommand } from "./commands/usage.ts";
import { volumesCommand } from "./commands/volumes.ts";
import { describeError, ExitStatus, USAGE_EXIT } from "./errors.ts";
import { createFactory, type Factory } from "./factory.ts";
import type { IoStreams } from "./iostreams.ts";

const COMMANDS = [
  loginCommand, gpusCommand, catalogCommand, launchCommand, lsCommand, showCommand, eventsCommand, logsCommand, metricsCommand, topCommand,
  stopCommand, startCommand, rmCommand, renameCommand, idleStopCommand, openCommand, forwardCommand, balanceCommand, keysCommand, ledgerCommand, usageCommand, topupCommand, webhooksCommand,
  sshKeysCommand, sshCommand, sshProxyCommand, sshConfigCommand, cpCommand, volumesCommand, membersCommand, accountsCommand, auditCommand,
];

function buildProgram(f: Factory) {
  const program = new Command("gpu")
    .description("Rent GPU servers from the command line. Configure with GPU_API_URL and GPU_API_KEY, or `gpu login`.")
    .addHelpText("after", "\nEvery command takes --help, and --json to print the API's JSON answer unchanged.");
  for (const make of COMMANDS) program.addCommand(make(f));
  for (const command of [program, ...program.commands, ...program.commands.flatMap((c) => c.commands)]) {
    command
      .exitOverride()
      .showHelpAfterError("(add --help for usage)")
      .configureOutput({ writeOut: (text) => f.io.stdout.write(text), writeErr: (text) => f.io.stderr.write(text) });
  }
  return program;
}

/** Runs one command line; resolves with the exit status. */
export async function runCli(argv: string[], io: IoStreams, env: NodeJS.ProcessEnv): Promise<number> {
  const f = createFactory(io, env);
  try {
    await buildProgram(f).parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    // commander has already printed its own message (or the help it was asked for).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT;
    if (error instanceof ExitStatus) return error.exitCode;
    io.err(`error: ${describeError(error, f.apiUrl())}`);
    return (error as { exitCode?: number }).exitCode ?? 1;
  }
}
