#!/bin/sh
":" //; root=$(dirname "$(readlink -f "$0")")/..; node=$root/node_modules/node/bin/node; [ -x "$node" ] || node=node; exec "$node" "$0" "$@"
// `gpu`, the command line of the GPU rental service (package.json bin: `npx gpu` in the repo, `gpu`
// once installed with `npm install -g .` or `npm link`). The two lines above are sh and JavaScript at
// once: run as a program, sh runs this file on the project's own Node 22 (the node@22 devDependency,
// whose type stripping runs .ts; whatever `node` comes first in PATH may be older), else on PATH's
// `node`; Node itself skips the first line and reads the second as a string and a comment.
import { processIo } from "./iostreams.ts";
import { runCli } from "./main.ts";

process.exitCode = await runCli(process.argv.slice(2), processIo(), process.env);
