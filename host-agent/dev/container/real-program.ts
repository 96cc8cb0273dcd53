// Entry that runs a real program as a local-runtime container (the real Jupyter a test stack asks
// for with DEV_JUPYTER, see ../jupyter-container.ts): its output is the container's log, and it
// ends with its parent, the agent, however the agent dies (the IPC channel closes), as the dev
// container server does. Argv: the program and its arguments.
import { spawn } from "node:child_process";

const [program, ...args] = process.argv.slice(2);
if (!program) {
  process.stderr.write("real program: no program given\n");
  process.exit(2);
}
const child = spawn(program, args, { stdio: ["ignore", "inherit", "inherit"] });
const end = () => child.kill("SIGTERM");
if (process.send) process.on("disconnect", end);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, end);
child.on("error", (error) => {
  process.stderr.write(`real program: ${program} did not start: ${error.message}\n`);
  process.exit(127);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
