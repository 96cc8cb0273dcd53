#!/usr/bin/env node
// `gpu`, the command line of the GPU rental service (package.json bin: `npx gpu --help` in the repo).
import { processIo } from "./iostreams.ts";
import { runCli } from "./main.ts";

process.exitCode = await runCli(process.argv.slice(2), processIo(), process.env);
